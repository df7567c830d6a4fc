/**
 * The feature panel: enrichment fields, or the restriction notice of the basic panel (spec 5.6).
 * On the central API path (`central`) the enrichment and the CF extract go through /api/gis and
 * /api/cf; a `catalog_hit` is shown as the valid extract it is (spec 3.2).
 */
import { useEffect, useState } from 'react';
import { ChangeTimeline, FollowButton } from '../notifications/WatchPanel';
import {
  BUILDING_LAYER,
  enrichCentral,
  loadCentralCfStatus,
  loadCfStatus,
  loadFeature,
  orderCentralCf,
  type CfStatus,
  type PanelFeature,
} from '../../lib/geoportal/api';
import { signInAgainUrl } from '../../lib/api';
import { AREA_LABELS, AREA_NOTE } from '../../lib/areas';
import { Fact } from '../Fact';
import { formatWhen } from '../../lib/dates';

/**
 * `buildLegal`: a building's legal state as the map draws it (the tile's build_legal, read from
 * its parcel's enrichment), so the panel never contradicts the building's colour.
 */
/** `building` while loading: the click said what was clicked, so the panel names it before it loads. */
export type PanelState = { loading: true; building?: boolean } | { error: string; signInAgain?: boolean } | { feature: PanelFeature; buildLegal?: number | null; building?: boolean };

const FIELDS: [string, string][] = [
  ['NR_CF', 'Nr. carte funciară'],
  ['NR_CF_VECHI', 'Nr. CF vechi'],
  ['NR_TOPO', 'Nr. topografic'],
  ['TIP_IMOBIL', 'Tip imobil'],
  ['SUPRAFATA', AREA_LABELS.landBook],
  ['SUPRAFATA_MASURATA', AREA_LABELS.measured],
  ['SUPRAFATA_ACTE', AREA_LABELS.deeds],
  ['INTRAVILAN', 'Intravilan'],
  ['CATEGORIE', 'Categorie de folosință'],
  ['ADRESA', 'Adresă'],
  ['PROPRIETARI', 'Proprietari'],
  ['PROPRIETARI_VECHI', 'Foști proprietari'],
  ['SOLICITANT', 'Solicitant'],
  ['HAS_BUILDING', 'Are construcție'],
  ['BUILD_LEGAL', 'Construcție cu acte'],
];

const area = (v: number | null) => (v === null ? '—' : `${v.toLocaleString('ro-RO', { maximumFractionDigits: 2 })} m²`);

const AREA_KEYS = new Set(['SUPRAFATA', 'SUPRAFATA_MASURATA', 'SUPRAFATA_ACTE']);

function show(key: string, v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (AREA_KEYS.has(key) && typeof v === 'number') return area(v);
  if (key === 'HAS_BUILDING' || key === 'BUILD_LEGAL') return v === 1 || v === '1' || v === true ? 'Da' : 'Nu';
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join('; ');
  return String(v);
}

/** Spec 4.3: the CF order action opens the epay tab in a new tab, with the user's own portal account. */
function CfOrderLink({ nrCad, siruta }: { nrCad: string; siruta: number }) {
  return (
    <a
      className="gp-btn gp-panel__cf"
      href={`/parcel-sync?${new URLSearchParams({ tab: 'epay', cad: nrCad, siruta: String(siruta) })}`}
      target="_blank"
      rel="noopener"
      data-testid="cf-order-link"
    >
      Comandă extras CF
    </a>
  );
}

function CfStatusLine({ nrCad, siruta, central }: { nrCad: string; siruta: number; central: boolean }) {
  const [state, setState] = useState<CfStatus | 'loading' | { error: string } | null>(null);
  useEffect(() => setState(null), [nrCad, siruta]);
  const run = (p: () => Promise<CfStatus>) => {
    setState('loading');
    p().then(setState, (err: Error) => setState({ error: err.message }));
  };
  if (state === null) {
    return (
      <>
      <button
        type="button"
        className="gp-btn gp-panel__cf"
        data-testid="cf-status-button"
        onClick={() => run(() => (central ? loadCentralCfStatus(nrCad, siruta) : loadCfStatus(nrCad, siruta)))}
      >
        Verifică extrasul CF
      </button>
      <CfOrderLink nrCad={nrCad} siruta={siruta} />
      </>
    );
  }
  if (state === 'loading') return <p className="gp-panel__note">Se verifică extrasul CF…</p>;
  if ('error' in state) return <p className="gp-panel__note gp-panel__note--fail">{state.error}</p>;
  if (!state.exists && central) {
    return (
      <p className="gp-panel__note" data-testid="cf-status">
        Nu există extras CF.{' '}
        <button type="button" className="gp-btn" data-testid="cf-order-button" onClick={() => run(() => orderCentralCf(nrCad, siruta))}>
          Comandă extras CF (1 credit)
        </button>
      </p>
    );
  }
  if (!state.exists) {
    return (
      <>
        <p className="gp-panel__note" data-testid="cf-status">Nu există extras CF. Comanda costă 1 credit.</p>
        <CfOrderLink nrCad={nrCad} siruta={siruta} />
      </>
    );
  }
  const until = state.expiresAt ? formatWhen(state.expiresAt, 'date') : null;
  return (
    <p className="gp-panel__note" data-testid="cf-status">
      {state.state === 'processing' ? 'Extras CF în curs de procesare.' : null}
      {state.state === 'valid' ? `Extras CF valabil până la ${until}.` : null}
      {state.state === 'expired' ? `Extras CF expirat (${until}); o comandă nouă costă 1 credit.` : null}
      {state.state === 'failed' ? 'Ultima comandă de extras CF a eșuat.' : null}
      {state.downloadUrl ? (
        <>
          {' '}
          <a href={state.downloadUrl}>Descarcă PDF</a>
        </>
      ) : null}
      {state.state === 'expired' || state.state === 'failed' ? (
        <>
          {' '}
          <CfOrderLink nrCad={nrCad} siruta={siruta} />
        </>
      ) : null}
    </p>
  );
}

const isBuilding = (f: PanelFeature) => 'layerId' in f && f.layerId === BUILDING_LAYER;

export function FeaturePanel({
  state,
  onClose,
  central = false,
  basicScope = false,
  onFeature,
}: {
  state: Exclude<PanelState, null>;
  onClose: () => void;
  /** The caller is on the central API path. */
  central?: boolean;
  /** The caller may not see personal data (scope `basic`, `none` or no claim): personal fields and CF extracts are withheld (spec 5.5, CONTRACT 6). */
  basicScope?: boolean;
  /** A newer version of the shown feature (after the central enrichment). */
  onFeature?: (f: PanelFeature) => void;
}) {
  const building = 'feature' in state ? isBuilding(state.feature) || state.building === true : 'loading' in state && state.building === true;
  return (
    <aside className="gp-panel" data-testid="feature-panel" aria-label={building ? 'Informații clădire' : 'Informații parcelă'}>
      <header className="gp-panel__head">
        <div>
          <p className="gp-panel__eyebrow" data-testid="feature-panel-kind">
            {building ? 'Clădire' : 'Parcelă'}
          </p>
          <h2 className="gp-panel__title" data-testid="feature-panel-title">
            {'feature' in state ? `Nr. cadastral ${state.feature.cadastralRef ?? '—'}` : 'loading' in state ? 'Se încarcă…' : 'Eroare'}
          </h2>
        </div>
        <button type="button" className="gp-panel__close" aria-label="Închide" onClick={onClose}>
          ×
        </button>
      </header>
      {'error' in state ? (
        <p className="gp-panel__note gp-panel__note--fail" data-testid="feature-panel-error">
          {state.error}
          {state.signInAgain ? (
            <>
              {' '}
              <a href={signInAgainUrl()} data-testid="sign-in-again">
                Autentificați-vă din nou
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      {'feature' in state ? (
        building ? (
          <BuildingBody feature={state.feature} mapLegal={state.buildLegal ?? null} />
        ) : (
          <PanelBody feature={state.feature} central={central} basicScope={basicScope} onFeature={onFeature} />
        )
      ) : null}
    </aside>
  );
}

function CentralEnrich({ feature, onFeature }: { feature: Extract<PanelFeature, { id: string }>; onFeature?: (f: PanelFeature) => void }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  if (!feature.cadastralRef) return null;
  const ref = feature.cadastralRef;
  return (
    <p className="gp-panel__note">
      <button
        type="button"
        className="gp-btn"
        data-testid="central-enrich-button"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          enrichCentral(feature.siruta, ref, !!feature.enrichedAt).then(
            (r) => {
              setBusy(false);
              setNote(r.cached ? 'Date din memoria API-ului central (mai noi de 30 de zile).' : 'Date aduse acum din cartea funciară.');
              onFeature?.(r.feature);
            },
            (err: Error) => {
              setBusy(false);
              setNote(err.message);
            },
          );
        }}
      >
        {busy ? 'Se îmbogățește…' : feature.enrichedAt ? 'Reîmprospătează datele' : 'Îmbogățește parcela'}
      </button>
      {note ? <span className="gp-muted"> {note}</span> : null}
    </p>
  );
}

/** Which area is which, one line until asked: the panel must not grow over the parcels beside it. */
function AreaNote() {
  return (
    <details className="gp-panel__note">
      <summary>De ce diferă suprafețele?</summary>
      <p data-testid="area-note">{AREA_NOTE}</p>
    </details>
  );
}

/** A building's own facts (its layer's attributes), not its parcel's. */
function BuildingBody({ feature, mapLegal }: { feature: PanelFeature; mapLegal: number | null }) {
  const a = ('attributes' in feature ? feature.attributes : null) ?? {};
  // The building layer's own flag when it has one, else what the map's colour says.
  const legal = a.IS_LEGAL ?? mapLegal;
  const parcelRef = feature.cadastralRef?.replace(/-C\d+$/, '') ?? null;
  return (
    <>
      <dl className="gp-facts" data-testid="building-facts">
        {'uatName' in feature ? (
          <Fact label="UAT">
            {feature.uatName ?? '—'} <span className="gp-muted">({feature.siruta})</span>
          </Fact>
        ) : null}
        <Fact label="Suprafață construită (stratul cadastral)">{area(feature.areaValue)}</Fact>
        {'attributes' in feature ? (
          <>
            <Fact label="Nr. construcție">{show('BUILDING_NO', a.BUILDING_NO)}</Fact>
            <Fact label="Construcție cu acte">{legal === 1 || legal === '1' ? 'Da' : legal === 0 || legal === '0' ? 'Nu' : 'necunoscut'}</Fact>
            <Fact label="Parcela">{parcelRef && parcelRef !== feature.cadastralRef ? `Nr. cadastral ${parcelRef}` : '—'}</Fact>
          </>
        ) : null}
      </dl>
      {'restricted' in feature ? (
        <p className="gp-panel__notice" data-testid="restricted-notice">
          Contul dumneavoastră are acces restrâns: sunt afișate doar numărul cadastral și suprafața construită.
        </p>
      ) : null}
    </>
  );
}

function PanelBody({
  feature,
  central,
  basicScope,
  onFeature,
}: {
  feature: PanelFeature;
  central: boolean;
  basicScope: boolean;
  onFeature?: (f: PanelFeature) => void;
}) {
  const twin = useLocalTwin(central && !('restricted' in feature) ? feature : null);
  if ('restricted' in feature) {
    return (
      <>
        <dl className="gp-facts">
          <Fact label={AREA_LABELS.layer} testId="area-layer">{area(feature.areaValue)}</Fact>
        </dl>
        <AreaNote />
        <p className="gp-panel__notice" data-testid="restricted-notice">
          Contul dumneavoastră are acces restrâns: sunt afișate doar numărul cadastral și suprafața din stratul cadastral.
        </p>
      </>
    );
  }
  // No owners from the central API yet (not enriched there): the office's store may hold the ones
  // the owner search found; the central facts it has win over the store's.
  const fromStore = central && !feature.enrichment?.PROPRIETARI && twin?.enrichment?.PROPRIETARI ? twin : null;
  const facts = fromStore ? { ...feature, enrichment: { ...fromStore.enrichment, ...known(feature.enrichment) } } : feature;
  const e = facts.enrichment ?? {};
  return (
    <>
      {/* The actions first: at 1440×900 they stay in view whatever the facts' length. */}
      {feature.cadastralRef || !central ? (
        <div className="gp-panel__actions" data-testid="panel-actions">
          {/* A CF extract names the owners: not offered to a viewer without the personal-data right. */}
          {feature.cadastralRef && !basicScope ? <CfStatusLine nrCad={feature.cadastralRef} siruta={feature.siruta} central={central} /> : null}
          {central ? null : <FollowButton target={{ featureId: feature.id }} label={FOLLOW_PARCEL} />}
        </div>
      ) : null}
      <dl className="gp-facts">
        <Fact label="UAT">
          {feature.uatName ?? '—'} <span className="gp-muted">({feature.siruta})</span>
        </Fact>
        <Fact label={AREA_LABELS.layer} testId="area-layer">{area(feature.areaValue)}</Fact>
        {facts.enrichment ? (
          FIELDS.filter(([k]) => k in e).map(([k, label]) => (
            <Fact key={k} label={label}>{show(k, e[k])}</Fact>
          ))
        ) : null}
      </dl>
      <AreaNote />
      <p className="gp-panel__note" data-testid="enrichment-note">
        {fromStore?.enrichedAt
          ? `Date din baza locală a biroului, îmbogățite la ${formatWhen(fromStore.enrichedAt, 'dateTimeSeconds')}; „Îmbogățește parcela” le aduce din API-ul central.`
          : facts.enrichedAt
            ? `Date îmbogățite la ${formatWhen(facts.enrichedAt, 'dateTimeSeconds')}.`
            : 'Parcela nu are încă date îmbogățite (proprietari, CF, adresă).'}
      </p>
      {basicScope ? (
        <p className="gp-panel__notice" data-testid="scope-notice">
          Contul dumneavoastră are acces de bază: proprietarii, numărul CF, adresa și documentele nu sunt afișate.
        </p>
      ) : null}
      {central ? <CentralEnrich feature={feature} onFeature={onFeature} /> : null}
      {central ? <CentralWatch twin={twin} /> : <ChangeTimeline featureId={feature.id} />}
    </>
  );
}

/** The fields that hold a value (the central API's public facts carry its personal fields as null). */
const known = (e: Record<string, unknown> | null): Record<string, unknown> =>
  Object.fromEntries(Object.entries(e ?? {}).filter(([, v]) => v !== null && v !== undefined && v !== ''));

const FOLLOW_PARCEL = { on: 'Nu mai urmări parcela', off: 'Urmărește parcela' };

type LocalFeature = Exclude<PanelFeature, { restricted: true }>;

/**
 * The office store's copy of a central parcel (same layer, SIRUTA and object id): undefined while
 * looking, null when the store does not hold it. The central API keeps no following and no change
 * history, and its detail has no owners until enriched, while the search found them in the store:
 * the panel reads both from here (docs/central.md "UI").
 */
function useLocalTwin(feature: LocalFeature | null): LocalFeature | null | undefined {
  const [twin, setTwin] = useState<LocalFeature | null | undefined>(undefined);
  const siruta = feature?.siruta;
  const objectId = feature?.objectId;
  const layerId = feature?.layerId;
  useEffect(() => {
    if (siruta === undefined || objectId === undefined) return;
    let stale = false;
    setTwin(undefined);
    loadFeature({ siruta, objectId, layerId }, false).then(
      (r) => !stale && setTwin('restricted' in r.feature ? null : r.feature),
      () => !stale && setTwin(null),
    );
    return () => {
      stale = true;
    };
  }, [siruta, objectId, layerId]);
  return twin;
}

/** Following and the change history on the central path, on the store's copy of the parcel. */
function CentralWatch({ twin }: { twin: LocalFeature | null | undefined }) {
  if (twin === undefined) return null;
  if (twin === null) {
    return (
      <p className="gp-panel__note" data-testid="central-watch-missing">
        Urmărirea și istoricul modificărilor se țin în baza locală a biroului, care nu conține încă această parcelă: apar după sincronizarea UAT-ului.
      </p>
    );
  }
  return (
    <>
      <div className="gp-panel__actions" data-testid="central-watch">
        <FollowButton target={{ featureId: twin.id }} label={FOLLOW_PARCEL} />
      </div>
      <ChangeTimeline featureId={twin.id} />
    </>
  );
}
