/**
 * /parcel-sync: the parcel-sync page. Tabs by `?tab=`: `sync` (the default: portal connection,
 * sync jobs, store summary) and `search` (several cadastral numbers at once, and owner search with
 * the source of each hit shown) and `epay` (CF extract orders, spec 4.3; `&cad=` prefills). The UAT
 * dashboard and the export are their own routes, under the same tab bar (ParcelSyncLayout).
 * The loader calls the domain services directly, with the API's viewer rules; its portal work goes
 * through the one door (lib/portal.server.ts), so a refusal past the caps answers 429.
 */
import { useState } from 'react';
import { data, type HeadersFunction, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import enrichmentCss from '../styles/enrichment.css?url';
import syncCss from '../styles/sync.css?url';
import { syncTabData } from '../lib/sync.server';
import { SyncTab } from '../components/sync/SyncTab';
import { ParcelSyncLayout } from '../components/sync/ParcelSyncLayout';
import { UatPicker, UatSummary } from '../components/sync/UatPicker';
import type { UatChoice } from '../components/sync/uatSearch';
import { requireSession } from '../lib/auth.server';
import { canSearchOwners, failureMessage, ownerNameProblem, uatOption, viewerOf } from '../lib/enrichment.server';
import { refusalInit, retryAfterHeaders, withinPortalDoor } from '../lib/portal.server';
import type { CadastralSearchResult, OwnerSearchResult } from '../../../domain/enrichment/service';
import { INVALID_SIRUTA_MESSAGE, UAT_SEARCH_MAX_CHARS, sirutaParam } from '../../../domain/landreg/rules';
import { searchText } from '../../../domain/text/queryText';
import { EnrichmentFields } from '../components/enrichment/EnrichmentFields';
import { EpayTab } from '../components/cf/EpayTab';
import cfCss from '../styles/cf.css?url';
import { Card } from '../components/Card';

export const meta: MetaFunction = () => [{ title: 'Sincronizare parcele · Geoportal cadastral' }];
export const headers: HeadersFunction = retryAfterHeaders;
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: enrichmentCss },
  { rel: 'stylesheet', href: syncCss },
  { rel: 'stylesheet', href: cfCss },
];

type Tab = 'sync' | 'search' | 'epay';

/** `?tab=`: search, epay (CF orders, spec 4.3); anything else is the default "Sincronizare". */
function tabOf(value: string | null): Tab {
  return value === 'search' || value === 'epay' ? value : 'sync';
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const viewer = viewerOf(auth);
  const url = new URL(request.url);
  const tab = tabOf(url.searchParams.get('tab'));
  const asked = sirutaParam(url.searchParams.get('siruta'));
  const siruta = asked === 'invalid' ? null : asked;
  const cad = (url.searchParams.get('cad') ?? '').trim();
  const owner = (url.searchParams.get('owner') ?? '').trim();
  const uat = await uatOption(context.services.landreg, siruta).catch(() => null);
  let search: CadastralSearchResult | null = null;
  let owners: OwnerSearchResult | null = null;
  let error: string | null = null;
  let refused: ResponseInit | undefined;
  // What the API refuses with a 400 (POST /api/landreg/search, /search-owner) the search tab
  // answers with a 400 and says why, before any portal call; the other tabs, which only preselect
  // the UAT, leave an unreadable one out.
  const bad = tab !== 'search' ? null : asked === 'invalid' ? INVALID_SIRUTA_MESSAGE : ownerNameProblem(owner);
  if (bad) {
    error = bad;
    refused = { status: 400 };
  } else if (tab === 'search' && siruta) {
    const { enrichment } = context.services;
    try {
      if (cad) search = await withinPortalDoor(context, request, auth, () => enrichment.searchCadastral({ siruta, cadastralNumbers: cad }, viewer));
      if (owner) owners = await withinPortalDoor(context, request, auth, () => enrichment.searchOwner({ siruta, name: owner }, viewer));
    } catch (err) {
      // Abandoned by the browser: nobody reads the page, and its portal calls have stopped.
      if (request.signal.aborted) throw err;
      error = failureMessage(err);
      refused = refusalInit(err);
    }
  }
  // The "Sincronizare" tab (issue 5): portal session and store summary, from the domain services;
  // its table of the store's UATs a page at a time (`uatQ`, `uatPage`).
  const sync =
    tab === 'sync'
      ? await syncTabData(context.services.landreg, { q: searchText(url.searchParams.get('uatQ'), UAT_SEARCH_MAX_CHARS), page: Number(url.searchParams.get('uatPage')) || 1 })
      : null;
  return data(
    {
    tab,
    sync,
    useCentralApi: auth.useCentralApi,
    isAdmin: auth.isAdmin,
    userId: auth.user.id,
    siruta,
    cad,
    owner,
    uat,
    search,
    owners,
    error,
    canSearchOwners: canSearchOwners(viewer),
    redacted: !viewer.personalData,
    },
    refused,
  );
}

const HEAD: Record<Tab, { title: string; sub: string }> = {
  sync: {
    title: 'Sincronizare cu portalul de cadastru',
    sub: 'Copia locală a straturilor portalului, UAT cu UAT: conexiune, sincronizări și starea bazei.',
  },
  search: {
    title: 'Căutare în cartea funciară',
    sub: 'Date din portalul de cadastru, completate cu proprietari, adresă și suprafețe.',
  },
  epay: {
    title: 'Comandă extras CF',
    sub: 'Extrase de carte funciară prin contul portalului de extrase CF: o comandă la rând, fiecare extras 1 credit.',
  },
};

export default function ParcelSync() {
  const d = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const busy = nav.state === 'loading' && nav.location?.pathname === '/parcel-sync' && new URLSearchParams(nav.location.search).get('tab') === 'search';
  const [uat, setUat] = useState<UatChoice | null>(d.uat);
  // A navigation to another ?siruta= (tab links, results) resets the choice to the loader's UAT.
  const [loaded, setLoaded] = useState(d.uat);
  if ((loaded?.siruta ?? null) !== (d.uat?.siruta ?? null)) {
    setLoaded(d.uat);
    setUat(d.uat);
  }
  const head = HEAD[d.tab];
  return (
    <ParcelSyncLayout active={d.tab} siruta={uat?.siruta ?? null} title={head.title} sub={head.sub}>
      {d.tab === 'sync' && d.sync && <SyncTab session={d.sync.session} store={d.sync.store} useCentralApi={d.useCentralApi} isAdmin={d.isAdmin} initialUat={d.uat} onUat={setUat} />}

      {d.tab === 'epay' &&
        (d.redacted ? (
          // CONTRACT 6: an extract carries the CF number and the owners; the API refuses these viewers too.
          <Card>
            <p className="notice" data-testid="cf-restricted-notice">
              Extrasele CF poartă numărul cărții funciare și proprietarii; contul dumneavoastră nu are acces la date personale, deci nu poate comanda sau
              descărca extrase CF.
            </p>
          </Card>
        ) : (
          <EpayTab initialUat={d.uat} initialCad={d.cad} isAdmin={d.isAdmin} central={d.useCentralApi} userId={d.userId} />
        ))}

      {d.tab === 'search' && (
        <>
          <Card>
            <Form method="get" className="form-row search-form">
              <input type="hidden" name="tab" value="search" />
              <UatPicker value={uat} onPick={setUat} name="siruta" className="search-form__uat" />
              <label className="field field--grow">
                <span>Numere cadastrale (separate prin virgulă)</span>
                <input name="cad" defaultValue={d.cad} placeholder="ex. 104777, 104778" />
              </label>
              <label className="field field--grow">
                <span>Proprietar</span>
                <input name="owner" defaultValue={d.owner} disabled={!d.canSearchOwners} placeholder={d.canSearchOwners ? 'ex. Popescu Ștefan' : 'indisponibil pentru acest cont'} />
              </label>
              <button type="submit" className="btn btn--primary" disabled={busy || !uat}>
                {busy ? 'Se caută…' : 'Caută'}
              </button>
            </Form>
            {uat && <UatSummary uat={uat} />}
          </Card>

          {busy && <p className="loading" role="status">Se interoghează portalul de cadastru…</p>}
          {d.error && (
            <p className="notice notice--fail" role="alert">
              {d.error}
            </p>
          )}

          {d.search && (
            <Card title={<>Rezultate pentru numerele cadastrale ({d.search.results.length})</>}>
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
                  <EnrichmentFields enrichment={r.enrichment as Record<string, unknown> | null} restricted={r.restricted} redacted={d.redacted} areaValue={r.featureId ? r.areaValue : undefined} />
                </article>
              ))}
            </Card>
          )}

          {d.owners && (
            <Card
              title={<>Proprietari „{d.owners.name}” ({d.owners.results.length})</>}
              actions={
                <span className={`badge badge--${d.owners.source}`} data-testid="owner-source">
                  {d.owners.source === 'local' ? 'sursa: baza locală' : d.owners.source === 'online' ? 'sursa: portal (online)' : 'fără rezultate'}
                </span>
              }
            >
              {d.owners.results.length === 0 ? (
                <p className="muted">Niciun proprietar găsit nici local, nici pe portal.</p>
              ) : (
                <div className="table-wrap">
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
                </div>
              )}
            </Card>
          )}
          {!d.search && !d.owners && !d.error && !busy && (
            <p className="empty-state">
              {uat ? 'Introduceți unul sau mai multe numere cadastrale, sau numele unui proprietar.' : 'Alegeți un UAT și introduceți numere cadastrale sau numele unui proprietar.'}
            </p>
          )}
        </>
      )}
    </ParcelSyncLayout>
  );
}
