/**
 * /parcel-sync/parcel/<id>: one stored parcel with every enrichment field (CONTRACT.md section 3),
 * the restriction notice for basic panel users, and "enrich now" (the same code path as
 * POST /api/geoportal/enrich, including its 410 rule for central-API users).
 */
import { data, type ActionFunctionArgs, type HeadersFunction, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import enrichmentCss from '../styles/enrichment.css?url';
import { requireSession } from '../lib/auth.server';
import { failureMessage, goneCentralApiMessage, viewerOf } from '../lib/enrichment.server';
import { refusalInit, retryAfterHeaders, withinPortalDoor } from '../lib/portal.server';
import { EnrichmentFields } from '../components/enrichment/EnrichmentFields';
import { formatArea } from '../components/enrichment/format';
import { AREA_LABELS } from '../lib/areas';
import { ParcelSyncLayout } from '../components/sync/ParcelSyncLayout';
import { Card } from '../components/Card';
import { formatWhen } from '../lib/dates';
import { isUuid } from '../../../domain/text/queryText';

export const meta: MetaFunction = () => [{ title: 'Parcelă · Sincronizare parcele' }];
export const headers: HeadersFunction = retryAfterHeaders;
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: enrichmentCss },
];


/** What the page and its action answer for an address that names no stored parcel. */
const notFound = () => new Response('Parcela nu există în baza de date locală.', { status: 404 });

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const id = params.id ?? '';
  const found = isUuid(id) ? await context.services.enrichment.storedParcel(id, viewerOf(auth)) : null;
  if (!found) throw notFound();
  return { ...found, canEnrich: !auth.useCentralApi };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const auth = requireSession(request, context);
  // Spec 5.9: enrichment is a legacy write; central-API users get the 410 message.
  if (auth.useCentralApi) return data({ ok: false, message: goneCentralApiMessage() });
  // The loader's own rule, before the portal door: what is no parcel id takes no portal slot.
  if (!isUuid(params.id)) throw notFound();
  try {
    const f = await withinPortalDoor(context, request, auth, () => context.services.enrichment.enrichOne({ id: params.id ?? '' }, viewerOf(auth), true));
    return data({ ok: true, message: `Parcela a fost îmbogățită (${formatWhen(f.enrichedAt ?? Date.now(), 'dateTimeSeconds')}).` });
  } catch (err) {
    if (request.signal.aborted) throw err;
    return data({ ok: false, message: failureMessage(err) }, refusalInit(err));
  }
}

export default function ParcelView() {
  const d = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const nav = useNavigation();
  const busy = nav.state !== 'idle' && nav.formMethod === 'POST';
  return (
    <ParcelSyncLayout
      active={null}
      siruta={d.parcel.siruta}
      eyebrow={
        <>
          <Link to={`/parcel-sync?tab=search&siruta=${d.parcel.siruta}`}>Sincronizare parcele</Link> ·{' '}
          <Link to={`/parcel-sync/dashboard?siruta=${d.parcel.siruta}`}>Tablou UAT {d.parcel.siruta}</Link>
        </>
      }
      title={`Parcela ${d.parcel.cadastralRef ?? `#${d.parcel.objectId}`}`}
      sub={`${AREA_LABELS.layer}: ${formatArea(d.parcel.areaValue)} · ${d.parcel.noGeometry ? 'fără geometrie în stratul de parcele' : 'cu geometrie'} · ${
        d.parcel.enrichedAt ? `îmbogățită la ${formatWhen(d.parcel.enrichedAt, 'date')}` : 'neîmbogățită'
      }`}
    >
      <Card
        title="Date din cartea funciară"
        actions={
          d.canEnrich &&
          !d.restricted && (
            <Form method="post">
              <button type="submit" className="btn btn--primary" disabled={busy}>
                {busy ? 'Se îmbogățește…' : 'Îmbogățește acum'}
              </button>
            </Form>
          )
        }
      >
        {result && (
          <p className={`notice ${result.ok ? 'notice--ok' : 'notice--fail'}`} role={result.ok ? 'status' : 'alert'}>
            {result.message}
          </p>
        )}
        <EnrichmentFields enrichment={d.enrichment as Record<string, unknown> | null} restricted={d.restricted} redacted={d.redacted} />
      </Card>
    </ParcelSyncLayout>
  );
}
