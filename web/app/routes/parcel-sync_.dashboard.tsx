/**
 * /parcel-sync/dashboard?siruta=: the UAT dashboard (spec 4.4 uat-dashboard) with SVG charts:
 * land use by category, intravilan/extravilan split, top owners, buildings with and without
 * legal documents. Same domain function and viewer rules as GET /api/landreg/uat-dashboard.
 */
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
import enrichmentCss from '../styles/enrichment.css?url';
import { requireSession } from '../lib/auth.server';
import { enrichmentDeps, failureMessage, uatDashboard, uatsWithParcels, viewerOf } from '../lib/enrichment.server';
import type { UatDashboard } from '../../../domain/enrichment/dashboard';
import { BarChart, DonutChart } from '../components/enrichment/Charts';
import { formatArea, formatInt } from '../components/enrichment/format';

export const meta: MetaFunction = () => [{ title: 'Tablou UAT · Sincronizare parcele' }];
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: enrichmentCss }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const siruta = Number(new URL(request.url).searchParams.get('siruta') ?? '') || null;
  const uats = await uatsWithParcels().catch(() => []);
  let dashboard: UatDashboard | null = null;
  let error: string | null = null;
  if (siruta) {
    try {
      dashboard = await uatDashboard(enrichmentDeps().db, siruta, viewerOf(auth));
    } catch (err) {
      error = failureMessage(err);
    }
  }
  return { siruta, uats, dashboard, error, basicPanel: auth.basicPanel };
}

const INTRAVILAN_LABEL: Record<string, string> = { DA: 'Intravilan', NU: 'Extravilan', MIXT: 'Mixt', NECUNOSCUT: 'Necunoscut' };

export default function Dashboard() {
  const { siruta, uats, dashboard: d, error, basicPanel } = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const busy = nav.state === 'loading';
  return (
    <div className="parcel-sync">
      <header className="page-head">
        <p className="page-head__eyebrow">
          <Link to={`/parcel-sync?tab=search${siruta ? `&siruta=${siruta}` : ''}`}>Sincronizare parcele</Link>
        </p>
        <h1 className="page-head__title">Tablou UAT{d?.uatName ? `: ${d.uatName}` : ''}</h1>
        {d && (
          <p className="page-head__sub">
            {d.county ? `Județul ${d.county} · ` : ''}SIRUTA {d.siruta} · date din baza locală, {new Date(d.generatedAt).toLocaleString('ro-RO')}
          </p>
        )}
      </header>
      <section className="card">
        <Form method="get" className="search-form">
          <label className="field field--grow">
            <span>UAT</span>
            <select name="siruta" defaultValue={siruta ?? ''} required>
              <option value="" disabled>
                Alegeți un UAT…
              </option>
              {uats.map((u) => (
                <option key={u.siruta} value={u.siruta}>
                  {u.name}
                  {u.county ? ` (${u.county})` : ''} · {u.parcels} parcele
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="btn btn--primary" disabled={busy}>
            {busy ? 'Se încarcă…' : 'Afișează'}
          </button>
        </Form>
        {uats.length === 0 && <p className="muted">Nu există încă UAT-uri sincronizate în baza locală.</p>}
      </section>
      {busy && <p className="loading" role="status">Se calculează statisticile…</p>}
      {error && (
        <p className="notice notice--fail" role="alert">
          {error}
        </p>
      )}
      {d && (
        <>
          <div className="stats">
            <div className="stat">
              <span className="stat__value">{formatArea(d.totalArea)}</span>
              <span className="stat__label">suprafață totală</span>
            </div>
            <div className="stat">
              <span className="stat__value">{formatInt(d.parcels.total)}</span>
              <span className="stat__label">parcele ({formatInt(d.parcels.noGeometry)} fără geometrie)</span>
            </div>
            <div className="stat">
              <span className="stat__value">{d.parcels.total ? Math.round((d.parcels.enriched / d.parcels.total) * 100) : 0}%</span>
              <span className="stat__label">îmbogățite ({formatInt(d.parcels.enriched)})</span>
            </div>
            <div className="stat">
              <span className="stat__value">{formatInt(d.buildings.total)}</span>
              <span className="stat__label">construcții</span>
            </div>
          </div>
          <div className="grid grid--2">
            <section className="card">
              <h2 className="card__title">Intravilan / extravilan</h2>
              <DonutChart
                title="Împărțirea suprafeței în intravilan și extravilan"
                centre={formatArea(d.totalArea)}
                data={d.intravilan.map((i) => ({ label: INTRAVILAN_LABEL[i.value] ?? i.value, value: i.area, display: `${formatArea(i.area)}, ${formatInt(i.parcels)} parcele` }))}
              />
            </section>
            <section className="card">
              <h2 className="card__title">Construcții</h2>
              <DonutChart
                title="Construcții cu și fără acte"
                centre={formatInt(d.buildings.total)}
                data={[
                  { label: 'Cu acte (intabulate)', value: d.buildings.withLegalDocuments },
                  { label: 'Fără acte', value: d.buildings.withoutLegalDocuments },
                  { label: 'Necunoscut', value: d.buildings.unknown },
                ].filter((x) => x.value > 0)}
              />
            </section>
          </div>
          <section className="card">
            <h2 className="card__title">Folosința terenului</h2>
            <BarChart title="Suprafață pe categorii de folosință" data={d.landUse.map((u) => ({ label: u.categorie, value: u.area, display: `${formatArea(u.area)} · ${formatInt(u.parcels)} parcele` }))} />
          </section>
          <section className="card">
            <h2 className="card__title">Proprietari principali</h2>
            {d.topOwners === null ? (
              <p className="notice notice--warn">
                {basicPanel ? 'Acces restricționat: contul dumneavoastră nu vede proprietarii.' : 'Datele proprietarilor nu sunt disponibile pentru nivelul de acces al contului.'}
              </p>
            ) : (
              <BarChart title="Proprietari după numărul de parcele" data={d.topOwners.map((o) => ({ label: o.name, value: o.parcels, display: `${o.parcels} parcele · ${formatArea(o.area)}` }))} />
            )}
          </section>
        </>
      )}
      {!d && !error && !busy && siruta === null && <p className="muted">Alegeți un UAT pentru a vedea statisticile.</p>}
    </div>
  );
}
