/**
 * /parcel-sync/dashboard?siruta=: the UAT dashboard (spec 4.4 uat-dashboard) with SVG charts:
 * land use by category, intravilan/extravilan split, top owners, buildings with and without
 * legal documents. Same domain function and viewer rules as GET /api/landreg/uat-dashboard.
 * Also what the last sync of each layer changed (added, removed, changed) and the button that
 * follows the UAT (the watchlist API).
 */
import { useState } from 'react';
import { data, type HeadersFunction, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { useLoaderData, useNavigate, useNavigation } from '@remix-run/react';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import enrichmentCss from '../styles/enrichment.css?url';
import { requireSession } from '../lib/auth.server';
import { failureMessage, uatOption, viewerOf } from '../lib/enrichment.server';
import { pageCaller, refusalInit, retryAfterHeaders } from '../lib/portal.server';
import type { UatDashboard } from '../../../domain/enrichment/service';
import { INVALID_SIRUTA_MESSAGE, sirutaParam } from '../../../domain/landreg/rules';
import { BarChart, DonutChart } from '../components/enrichment/Charts';
import { formatArea, formatInt } from '../components/enrichment/format';
import { ParcelSyncLayout } from '../components/sync/ParcelSyncLayout';
import { UatPicker, UatSummary } from '../components/sync/UatPicker';
import type { UatChoice } from '../components/sync/uatSearch';
import { Card } from '../components/Card';
import { formatWhen } from '../lib/dates';
import type { LayerSyncChanges } from '../lib/sync.server';
import { FollowUatButton } from '../components/notifications/FollowUatButton';
import { LandUseLegend } from '../components/enrichment/LandUseLegend';
import { countOf } from '../lib/words';

export const meta: MetaFunction = () => [{ title: 'Tablou UAT · Sincronizare parcele' }];
export const headers: HeadersFunction = retryAfterHeaders;
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: enrichmentCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const asked = sirutaParam(new URL(request.url).searchParams.get('siruta'));
  const siruta = asked === 'invalid' ? null : asked;
  const uat = await uatOption(context.services.landreg, siruta).catch(() => null);
  let dashboard: UatDashboard | null = null;
  let error: string | null = null;
  let refused: ResponseInit | undefined;
  let changes: LayerSyncChanges[] = [];
  if (siruta) {
    try {
      [dashboard, changes] = await Promise.all([
        context.services.enrichment.uatDashboard(siruta, viewerOf(auth), pageCaller(request, auth)),
        context.services.landreg.lastSyncChanges(siruta),
      ]);
    } catch (err) {
      // Abandoned by the browser: nobody reads the page, and its read was cancelled.
      if (request.signal.aborted) throw err;
      error = failureMessage(err);
      refused = refusalInit(err);
    }
  }
  const body = { siruta, uat, dashboard, changes, error: asked === 'invalid' ? INVALID_SIRUTA_MESSAGE : error, basicPanel: auth.basicPanel };
  // A SIRUTA the API's uat-dashboard refuses with a 400 is a 400 here too, with the reason on the
  // page; past the heavy-read caps it is the API's 429 with Retry-After.
  return data(body, asked === 'invalid' ? { status: 400 } : refused);
}

/** The building colours of the map legend (lib/geoportal/style.ts COLORS). */
const BUILDING_COLORS = { legal: '#2563eb', illegal: '#dc2626', unknown: '#6b7280' };

const INTRAVILAN_LABEL: Record<string, string> = { DA: 'Intravilan', NU: 'Extravilan', MIXT: 'Mixt', NECUNOSCUT: 'Necunoscut' };

export default function Dashboard() {
  const { siruta, uat: loadedUat, dashboard: d, changes, error, basicPanel } = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const navigate = useNavigate();
  const busy = nav.state === 'loading' && nav.location?.pathname === '/parcel-sync/dashboard';
  const [uat, setUat] = useState<UatChoice | null>(loadedUat);
  const [loaded, setLoaded] = useState(loadedUat);
  if ((loaded?.siruta ?? null) !== (loadedUat?.siruta ?? null)) {
    setLoaded(loadedUat);
    setUat(loadedUat);
  }
  const pick = (u: UatChoice | null) => {
    setUat(u);
    if (u && u.siruta !== siruta) navigate(`?siruta=${u.siruta}`);
  };
  return (
    <ParcelSyncLayout
      active="dashboard"
      siruta={uat?.siruta ?? siruta}
      title={d?.uatName ? `Tablou UAT: ${d.uatName}` : 'Tablou UAT'}
      sub={
        d
          ? `${d.county ? `Județul ${d.county} · ` : ''}SIRUTA ${d.siruta} · date din baza locală, ${formatWhen(d.generatedAt, 'dateTime')}`
          : 'Folosința terenului, intravilan și extravilan, proprietari și construcții, din baza locală.'
      }
    >
      <Card>
        <div className="form-row">
          <UatPicker value={uat} onPick={pick} />
        </div>
        {uat && <UatSummary uat={uat} />}
        {loadedUat && <FollowUatButton siruta={loadedUat.siruta} name={loadedUat.name} />}
      </Card>
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
          <Card title="Ultima sincronizare" testId="dashboard-sync-changes">
            {changes.length === 0 ? (
              <p className="muted">UAT-ul nu are încă o sincronizare încheiată.</p>
            ) : (
              <table className="table">
                <thead>
                  <tr>
                    <th>Încheiată</th>
                    <th className="num">Adăugate</th>
                    <th className="num">Eliminate</th>
                    <th className="num">Modificate</th>
                    <th>Ce s-a schimbat</th>
                  </tr>
                </thead>
                <tbody>
                  {changes.map((c) => (
                    <tr key={c.layerId}>
                      <td>{formatWhen(c.finishedAt, 'dateTime')}</td>
                      <td className="num">{formatInt(c.added)}</td>
                      <td className="num">{formatInt(c.removed)}</td>
                      <td className="num">{formatInt(c.changed)}</td>
                      <td>{c.summary}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Card>
          <div className="grid grid--2">
            <Card title="Intravilan / extravilan">
              <DonutChart
                title="Împărțirea suprafeței în intravilan și extravilan"
                centre={formatArea(d.totalArea)}
                data={d.intravilan.map((i) => ({ label: INTRAVILAN_LABEL[i.value] ?? i.value, value: i.area, display: `${formatArea(i.area)}, ${countOf(i.parcels, 'parcelă', 'parcele')}` }))}
              />
            </Card>
            <Card title="Construcții">
              <DonutChart
                title="Construcții cu și fără acte"
                centre={formatInt(d.buildings.total)}
                data={[
                  { label: 'Cu acte (intabulate)', value: d.buildings.withLegalDocuments, color: BUILDING_COLORS.legal },
                  { label: 'Fără acte', value: d.buildings.withoutLegalDocuments, color: BUILDING_COLORS.illegal },
                  { label: 'Necunoscut', value: d.buildings.unknown, color: BUILDING_COLORS.unknown },
                ].filter((x) => x.value > 0)}
              />
            </Card>
          </div>
          <Card title="Folosința terenului">
            <BarChart title="Suprafață pe categorii de folosință" data={d.landUse.map((u) => ({ label: u.categorie, value: u.area, display: `${formatArea(u.area)} · ${countOf(u.parcels, 'parcelă', 'parcele')}` }))} />
            <LandUseLegend codes={d.landUse.map((u) => u.categorie)} />
          </Card>
          <Card title="Proprietari principali">
            {d.topOwners === null ? (
              <p className="notice notice--warn">
                {basicPanel ? 'Acces restricționat: contul dumneavoastră nu vede proprietarii.' : 'Datele proprietarilor nu sunt disponibile pentru nivelul de acces al contului.'}
              </p>
            ) : (
              <BarChart title="Proprietari după numărul de parcele" data={d.topOwners.map((o) => ({ label: o.name, value: o.parcels, display: `${countOf(o.parcels, 'parcelă', 'parcele')} · ${formatArea(o.area)}` }))} />
            )}
          </Card>
        </>
      )}
      {!d && !error && !busy && siruta === null && <p className="empty-state">Alegeți un UAT pentru a vedea statisticile din baza locală.</p>}
    </ParcelSyncLayout>
  );
}
