/**
 * /parcel-sync: the parcel-sync page. Tabs by `?tab=` (the sync engine adds its own tab keys);
 * this module owns `search` (the default): several cadastral numbers at once, and owner search
 * with the source of each hit shown. Results link to the parcel view and the UAT dashboard.
 * The loader calls the domain services directly, with the API's viewer rules.
 */
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
import enrichmentCss from '../styles/enrichment.css?url';
import syncCss from '../styles/sync.css?url';
import { syncTabData } from '../lib/sync.server';
import { SyncTab } from '../components/sync/SyncTab';
import { requireSession } from '../lib/auth.server';
import { canSearchOwners, enrichmentDeps, failureMessage, personalDataHidden, searchCadastral, searchOwner, uatsWithParcels, viewerOf } from '../lib/enrichment.server';
import type { CadastralSearchResult, OwnerSearchResult } from '../../../domain/enrichment/service';
import { EnrichmentFields } from '../components/enrichment/EnrichmentFields';

export const meta: MetaFunction = () => [{ title: 'Sincronizare parcele · Geoportal cadastral' }];
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: enrichmentCss },
  { rel: 'stylesheet', href: syncCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const viewer = viewerOf(auth);
  const url = new URL(request.url);
  const tab = url.searchParams.get('tab') ?? 'search';
  const siruta = Number(url.searchParams.get('siruta') ?? '') || null;
  const cad = (url.searchParams.get('cad') ?? '').trim();
  const owner = (url.searchParams.get('owner') ?? '').trim();
  const uats = await uatsWithParcels().catch(() => []);
  let search: CadastralSearchResult | null = null;
  let owners: OwnerSearchResult | null = null;
  let error: string | null = null;
  if (tab === 'search' && siruta) {
    try {
      if (cad) search = await searchCadastral(enrichmentDeps(), { siruta, cadastralNumbers: cad }, viewer);
      if (owner) owners = await searchOwner(enrichmentDeps(), { siruta, name: owner }, viewer);
    } catch (err) {
      error = failureMessage(err);
    }
  }
  // The "Sincronizare" tab (issue 5): portal session and store summary, from the domain services.
  const sync = tab === 'sync' ? await syncTabData() : null;
  return {
    tab,
    sync,
    useCentralApi: auth.useCentralApi,
    siruta,
    cad,
    owner,
    uats,
    search,
    owners,
    error,
    canSearchOwners: canSearchOwners(viewer),
    redacted: personalDataHidden(viewer.enrichmentScope),
  };
}

const TABS: Array<[string, string]> = [
  ['sync', 'Sincronizare'],
  ['search', 'Căutare cadastrală'],
];

export default function ParcelSync() {
  const d = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const busy = nav.state === 'loading' && nav.location?.pathname === '/parcel-sync';
  const uat = d.uats.find((u) => u.siruta === d.siruta);
  return (
    <div className="parcel-sync">
      <header className="page-head">
        <p className="page-head__eyebrow">Sincronizare parcele</p>
        <h1 className="page-head__title">{d.tab === 'sync' ? 'Sincronizare cu portalul de cadastru' : 'Căutare în cartea funciară'}</h1>
        <p className="page-head__sub">
          {d.tab === 'sync'
            ? 'Copia locală a straturilor portalului, UAT cu UAT: conexiune, sincronizări și starea bazei.'
            : 'Date din portalul de cadastru, completate cu proprietari, adresă și suprafețe.'}
        </p>
      </header>
      <nav className="tabs" aria-label="Secțiuni">
        {TABS.map(([key, label]) => (
          <Link key={key} to={`?tab=${key}`} className={`tabs__tab${d.tab === key ? ' tabs__tab--active' : ''}`} aria-current={d.tab === key ? 'page' : undefined}>
            {label}
          </Link>
        ))}
        <Link to={d.siruta ? `/parcel-sync/dashboard?siruta=${d.siruta}` : '/parcel-sync/dashboard'} className="tabs__tab">
          Tablou UAT
        </Link>
        <Link to={d.siruta ? `/parcel-sync/export?siruta=${d.siruta}` : '/parcel-sync/export'} className="tabs__tab">
          Export
        </Link>
      </nav>

      {d.tab === 'sync' && d.sync && <SyncTab session={d.sync.session} store={d.sync.store} useCentralApi={d.useCentralApi} />}

      {d.tab === 'search' && (
        <>
          <section className="card">
            <Form method="get" className="search-form">
              <input type="hidden" name="tab" value="search" />
              <label className="field">
                <span>UAT (cod SIRUTA)</span>
                <input name="siruta" list="uat-list" inputMode="numeric" required defaultValue={d.siruta ?? ''} placeholder="ex. 42708" />
                <datalist id="uat-list">
                  {d.uats.map((u) => (
                    <option key={u.siruta} value={u.siruta}>
                      {u.name}
                      {u.county ? `, jud. ${u.county}` : ''}
                    </option>
                  ))}
                </datalist>
              </label>
              <label className="field field--grow">
                <span>Numere cadastrale (separate prin virgulă)</span>
                <input name="cad" defaultValue={d.cad} placeholder="ex. 104777, 104778" />
              </label>
              <label className="field field--grow">
                <span>Proprietar</span>
                <input name="owner" defaultValue={d.owner} disabled={!d.canSearchOwners} placeholder={d.canSearchOwners ? 'ex. Popescu Ștefan' : 'indisponibil pentru contul dumneavoastră'} />
              </label>
              <button type="submit" className="btn btn--primary" disabled={busy}>
                {busy ? 'Se caută…' : 'Caută'}
              </button>
            </Form>
            {uat && <p className="muted">UAT: {uat.name}{uat.county ? `, județul ${uat.county}` : ''} · {uat.parcels} parcele în baza locală</p>}
          </section>

          {busy && <p className="loading" role="status">Se interoghează portalul de cadastru…</p>}
          {d.error && (
            <p className="notice notice--fail" role="alert">
              {d.error}
            </p>
          )}

          {d.search && (
            <section className="card" aria-labelledby="cad-results">
              <header className="card__head">
                <h2 id="cad-results" className="card__title">
                  Rezultate pentru numerele cadastrale ({d.search.results.length})
                </h2>
              </header>
              {d.search.notFound.length > 0 && <p className="notice notice--warn">Negăsite în acest UAT: {d.search.notFound.join(', ')}</p>}
              {d.search.results.length === 0 && <p className="muted">Nicio parcelă găsită.</p>}
              {d.search.results.map((r) => (
                <article key={r.immovablePk ?? r.cadastralRef} className="result">
                  <h3 className="result__title">
                    Nr. cadastral {r.cadastralRef}
                    {r.matchedBy === 'landbook' && <span className="badge">găsit după nr. CF</span>}
                    {r.featureId ? (
                      <Link to={`/parcel-sync/parcel/${r.featureId}`} className="btn btn--link">
                        Deschide parcela
                      </Link>
                    ) : (
                      <span className="badge badge--muted">nu este în baza locală</span>
                    )}
                  </h3>
                  <EnrichmentFields enrichment={r.enrichment as Record<string, unknown> | null} restricted={r.restricted} redacted={d.redacted} />
                </article>
              ))}
            </section>
          )}

          {d.owners && (
            <section className="card" aria-labelledby="owner-results">
              <header className="card__head">
                <h2 id="owner-results" className="card__title">
                  Proprietari „{d.owners.name}” ({d.owners.results.length})
                </h2>
                <span className={`badge badge--${d.owners.source}`} data-testid="owner-source">
                  {d.owners.source === 'local' ? 'sursa: baza locală' : d.owners.source === 'online' ? 'sursa: portal (online)' : 'fără rezultate'}
                </span>
              </header>
              {d.owners.results.length === 0 ? (
                <p className="muted">Niciun proprietar găsit nici local, nici pe portal.</p>
              ) : (
                <table className="table">
                  <thead>
                    <tr>
                      <th>Nr. cadastral</th>
                      <th>Nr. CF</th>
                      <th>Proprietari găsiți</th>
                      <th>Sursă</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.owners.results.map((h) => (
                      <tr key={`${h.immovablePk}-${h.featureId}`}>
                        <td>{h.featureId ? <Link to={`/parcel-sync/parcel/${h.featureId}`}>{h.cadastralRef}</Link> : h.cadastralRef}</td>
                        <td>{h.nrCF ?? '—'}</td>
                        <td>
                          {h.owners.map((o, i) => (
                            <div key={i}>
                              {o.name}
                              {o.share ? ` (${o.share})` : ''} {!o.current && <span className="badge badge--muted">anterior</span>}
                            </div>
                          ))}
                        </td>
                        <td>{h.source === 'local' ? 'local' : 'online'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          )}
          {!d.search && !d.owners && !d.error && !busy && <p className="muted">Alegeți un UAT și introduceți numere cadastrale sau numele unui proprietar.</p>}
        </>
      )}
    </div>
  );
}
