/**
 * Every enrichment field of CONTRACT.md section 3 with its Romanian label, or the restriction
 * notice for basic panel users (spec 5.6). Redaction already happened on the server; a null shows
 * as a dash, and a key nulled by the `basic` scope says so.
 */
import { PERSONAL_ENRICHMENT_KEYS } from '../../../../domain/auth/rules';
import { formatArea } from './format';
import { AREA_LABELS, AREA_NOTE } from '../../lib/areas';
import { formatWhen } from '../../lib/dates';
import { landUseName } from '../../lib/landUse';
import { LandUseLegend } from './LandUseLegend';

const LABELS: Array<[string, string]> = [
  ['NR_CAD', 'Număr cadastral'],
  ['NR_CF', 'Număr carte funciară'],
  ['NR_CF_VECHI', 'Număr CF vechi'],
  ['NR_TOPO', 'Număr topografic'],
  ['UAT', 'UAT'],
  ['SIRUTA', 'Cod SIRUTA'],
  ['JUDET', 'Județ'],
  ['IMMOVABLE_ID', 'ID imobil'],
  ['WORKSPACE_ID', 'ID județ (portal)'],
  ['TIP_IMOBIL', 'Tip imobil'],
  ['SUPRAFATA', AREA_LABELS.landBook],
  ['SUPRAFATA_MASURATA', AREA_LABELS.measured],
  ['SUPRAFATA_ACTE', AREA_LABELS.deeds],
  ['INTRAVILAN', 'Intravilan'],
  ['CATEGORIE', 'Categorii de folosință'],
  ['ADRESA', 'Adresă'],
  ['PROPRIETARI', 'Proprietari actuali'],
  ['PROPRIETARI_VECHI', 'Proprietari anteriori'],
  ['NR_PROPRIETARI', 'Număr proprietari'],
  ['SOLICITANT', 'Solicitant'],
  ['HAS_BUILDING', 'Are construcții'],
  ['BUILD_LEGAL', 'Construcții intabulate'],
  ['DOC', 'Documentații'],
  ['DATA_SURSA', 'Valabil de la'],
  ['ENRICHED_AT', 'Îmbogățit la'],
];

const PERSONAL: ReadonlySet<string> = new Set<string>(PERSONAL_ENRICHMENT_KEYS);
const AREAS = new Set(['SUPRAFATA', 'SUPRAFATA_MASURATA', 'SUPRAFATA_ACTE']);

function show(key: string, v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (AREAS.has(key) && typeof v === 'number') return formatArea(v);
  if (key === 'HAS_BUILDING' || key === 'BUILD_LEGAL') return v === 1 ? 'Da' : 'Nu';
  if (key === 'DATA_SURSA' || key === 'ENRICHED_AT') return formatWhen(String(v), 'date');
  return String(v);
}

export function RestrictedNotice() {
  return (
    <p className="notice notice--warn" data-testid="restricted-notice">
      Acces restricționat: contul dumneavoastră vede doar numărul cadastral și suprafețele parcelei.
    </p>
  );
}

/** The stored copy's layer area beside the land book's, `undefined` where there is no stored copy to read. */
function LayerArea({ areaValue }: { areaValue: number | null | undefined }) {
  if (areaValue === undefined) return null;
  return (
    <div>
      <dt>{AREA_LABELS.layer}</dt>
      <dd data-testid="area-layer">{show('SUPRAFATA', areaValue)}</dd>
    </div>
  );
}

export function EnrichmentFields({
  enrichment,
  restricted,
  redacted,
  areaValue,
}: {
  enrichment: Record<string, unknown> | null;
  restricted: boolean;
  redacted: boolean;
  /** The cadastral layer's area of the office's stored copy, when the page has one. */
  areaValue?: number | null;
}) {
  if (restricted) {
    return (
      <>
        <dl className="facts">
          <div>
            <dt>Număr cadastral</dt>
            <dd>{show('NR_CAD', enrichment?.NR_CAD)}</dd>
          </div>
          <div>
            <dt>{AREA_LABELS.landBook}</dt>
            <dd data-testid="area-land-book">{show('SUPRAFATA', enrichment?.SUPRAFATA)}</dd>
          </div>
          <LayerArea areaValue={areaValue} />
        </dl>
        <p className="muted" data-testid="area-note">{AREA_NOTE}</p>
        <RestrictedNotice />
      </>
    );
  }
  if (!enrichment) return <p className="muted">Parcela nu a fost încă îmbogățită cu date din cartea funciară.</p>;
  const uses = Array.isArray(enrichment.FOLOSINTE) ? (enrichment.FOLOSINTE as Array<{ categorie: string; suprafata: number | null; intravilan: string | null }>) : [];
  return (
    <>
      <dl className="facts facts--wide" data-testid="enrichment-fields">
        {LABELS.map(([key, label]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd data-testid={key === 'SUPRAFATA' ? 'area-land-book' : undefined}>
              {redacted && PERSONAL.has(key) ? <span className="muted">ascuns (acces de bază)</span> : show(key, enrichment[key])}
            </dd>
          </div>
        ))}
        <LayerArea areaValue={areaValue} />
      </dl>
      <p className="muted" data-testid="area-note">{AREA_NOTE}</p>
      {uses.length > 0 && (
        <table className="table">
          <caption>Folosințe</caption>
          <thead>
            <tr>
              <th>Categorie</th>
              <th>Suprafață</th>
              <th>Intravilan</th>
            </tr>
          </thead>
          <tbody>
            {uses.map((u, i) => (
              <tr key={`${u.categorie}-${i}`}>
                <td>
                  <abbr title={landUseName(u.categorie) ?? undefined}>{u.categorie}</abbr>
                </td>
                <td>{formatArea(u.suprafata)}</td>
                <td>{u.intravilan ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LandUseLegend codes={uses.length > 0 ? uses.map((u) => u.categorie) : (enrichment.CATEGORIE as string | null)} />
    </>
  );
}
