/** The feature panel: enrichment fields, or the restriction notice of the basic panel (spec 5.6). */
import { useEffect, useState } from 'react';
import { loadCfStatus, type CfStatus, type PanelFeature } from '../../lib/geoportal/api';
import { WatchPanel } from '../notifications/WatchPanel';

const FIELDS: [string, string][] = [
  ['NR_CF', 'Nr. carte funciară'],
  ['NR_CF_VECHI', 'Nr. CF vechi'],
  ['NR_TOPO', 'Nr. topografic'],
  ['TIP_IMOBIL', 'Tip imobil'],
  ['SUPRAFATA_MASURATA', 'Suprafață măsurată (m²)'],
  ['SUPRAFATA_ACTE', 'Suprafață din acte (m²)'],
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

function show(key: string, v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
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

function CfStatusLine({ nrCad, siruta }: { nrCad: string; siruta: number }) {
  const [state, setState] = useState<CfStatus | 'loading' | { error: string } | null>(null);
  useEffect(() => setState(null), [nrCad, siruta]);
  if (state === null) {
    return (
      <>
      <button
        type="button"
        className="gp-btn gp-panel__cf"
        data-testid="cf-status-button"
        onClick={() => {
          setState('loading');
          loadCfStatus(nrCad, siruta).then(setState, (err: Error) => setState({ error: err.message }));
        }}
      >
        Verifică extrasul CF
      </button>
      <CfOrderLink nrCad={nrCad} siruta={siruta} />
      </>
    );
  }
  if (state === 'loading') return <p className="gp-panel__note">Se verifică extrasul CF…</p>;
  if ('error' in state) return <p className="gp-panel__note gp-panel__note--fail">{state.error}</p>;
  if (!state.exists) {
    return (
      <>
        <p className="gp-panel__note" data-testid="cf-status">Nu există extras CF. Comanda costă 1 credit.</p>
        <CfOrderLink nrCad={nrCad} siruta={siruta} />
      </>
    );
  }
  const until = state.expiresAt ? new Date(state.expiresAt).toLocaleDateString('ro-RO') : null;
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

export function FeaturePanel({
  state,
  onClose,
}: {
  state: { loading: true } | { error: string } | { feature: PanelFeature };
  onClose: () => void;
}) {
  return (
    <aside className="gp-panel" data-testid="feature-panel" aria-label="Informații parcelă">
      <header className="gp-panel__head">
        <div>
          <p className="gp-panel__eyebrow">Parcelă</p>
          <h2 className="gp-panel__title" data-testid="feature-panel-title">
            {'feature' in state ? `Nr. cadastral ${state.feature.cadastralRef ?? '—'}` : 'loading' in state ? 'Se încarcă…' : 'Eroare'}
          </h2>
        </div>
        <button type="button" className="gp-panel__close" aria-label="Închide" onClick={onClose}>
          ×
        </button>
      </header>
      {'error' in state ? <p className="gp-panel__note gp-panel__note--fail">{state.error}</p> : null}
      {'feature' in state ? <PanelBody feature={state.feature} /> : null}
    </aside>
  );
}

function PanelBody({ feature }: { feature: PanelFeature }) {
  if ('restricted' in feature) {
    return (
      <>
        <dl className="gp-facts">
          <div>
            <dt>Suprafață</dt>
            <dd>{area(feature.areaValue)}</dd>
          </div>
        </dl>
        <p className="gp-panel__notice" data-testid="restricted-notice">
          Contul dumneavoastră are acces restrâns: sunt afișate doar numărul cadastral și suprafața.
        </p>
      </>
    );
  }
  const e = feature.enrichment ?? {};
  return (
    <>
      <dl className="gp-facts">
        <div>
          <dt>UAT</dt>
          <dd>
            {feature.uatName ?? '—'} <span className="gp-muted">({feature.siruta})</span>
          </dd>
        </div>
        <div>
          <dt>Suprafață</dt>
          <dd>{area(feature.areaValue)}</dd>
        </div>
        {feature.enrichment ? (
          FIELDS.filter(([k]) => k in e).map(([k, label]) => (
            <div key={k}>
              <dt>{label}</dt>
              <dd>{show(k, e[k])}</dd>
            </div>
          ))
        ) : null}
      </dl>
      <p className="gp-panel__note">
        {feature.enrichedAt
          ? `Date îmbogățite la ${new Date(feature.enrichedAt).toLocaleString('ro-RO')}.`
          : 'Parcela nu are încă date îmbogățite (proprietari, CF, adresă).'}
      </p>
      {feature.cadastralRef ? <CfStatusLine nrCad={feature.cadastralRef} siruta={feature.siruta} /> : null}
      <WatchPanel featureId={feature.id} />
    </>
  );
}
