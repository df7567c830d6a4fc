/**
 * The export report (with its pipeline section) and the quality report, as JSON for programs and
 * as a self-contained HTML page in Romanian for people. Pure: the builder gathers the facts.
 */
import type { QualityReport } from './quality';
import { layerLabel } from '../text/labels';

export type StepStatus = 'done' | 'skipped' | 'failed';

/** One step of an export's pipeline: what ran, how long, what it fetched or wrote. */
export interface PipelineStep {
  /** Machine name: `freshness`, `sync:<layer>`, `no-geometry`, `enrich`, `gpkg`, `csv`, `dxf:<layer>`, ... */
  step: string;
  /** Romanian label. */
  label: string;
  status: StepStatus;
  startedAt: string;
  durationMs: number;
  /** Romanian detail: why skipped, what was written, the error. */
  detail: string;
  /** What a sync step fetched from the portal (the child workflow's summary). */
  fetched?: Record<string, number>;
}

export interface ReportFile {
  name: string;
  bytes: number;
  /** GPKG: feature count per layer table; CSV: data rows. */
  features?: Record<string, number>;
}

export interface ExportReport {
  title: string;
  jobId: string | null;
  siruta: number;
  uat: string | null;
  county: string | null;
  mode: string;
  includeNoGeometry: boolean;
  personalDataHidden: boolean;
  srs: 'EPSG:3844';
  generatedAt: string;
  files: ReportFile[];
  pipeline: PipelineStep[];
}

const STATUS_RO: Record<StepStatus, string> = { done: 'efectuat', skipped: 'omis', failed: 'eșuat' };

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const fmtInt = (n: number) => new Intl.NumberFormat('ro-RO').format(n);
const fmtMs = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1).replace('.', ',')} s`);
const fmtBytes = (b: number) =>
  b < 1024 ? `${b} B` : b < 1024 ** 2 ? `${(b / 1024).toFixed(1)} KB` : `${(b / 1024 ** 2).toFixed(1)} MB`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="ro"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1d2433}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #c9ced8;padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:#eef1f6}.num{text-align:right}.failed{color:#b3261e}.skipped{color:#6b7280}.done{color:#1b7f3b}
</style></head><body>
${body}
</body></html>
`;
}

function table(head: string[], rows: string[][], numeric: number[] = []): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const tr = rows
    .map((r) => `<tr>${r.map((c, i) => `<td${numeric.includes(i) ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

export function exportReportHtml(r: ExportReport): string {
  const where = [r.uat, r.county ? `jud. ${r.county}` : null, `SIRUTA ${r.siruta}`].filter(Boolean).join(', ');
  const facts = table(
    ['Câmp', 'Valoare'],
    [
      ['UAT', escapeHtml(where)],
      ['Mod', escapeHtml(r.mode === 'magic' ? 'complet (toate înregistrările, îmbogățite)' : r.mode === 'base' ? 'de bază (doar cu geometrie)' : r.mode)],
      ['Înregistrări fără geometrie', r.includeNoGeometry ? 'incluse (fără geometrie pe hartă)' : 'excluse'],
      ['Date personale', r.personalDataHidden ? 'ascunse (drept de acces restrâns)' : 'incluse'],
      ['Sistem de coordonate', 'EPSG:3844 (Stereo 70)'],
      ['Generat la', escapeHtml(r.generatedAt)],
      ['Lucrare', escapeHtml(r.jobId ?? 'export local')],
    ],
  );
  const files = table(
    ['Fișier', 'Dimensiune', 'Obiecte'],
    r.files.map((f) => [
      escapeHtml(f.name),
      fmtBytes(f.bytes),
      f.features ? escapeHtml(Object.entries(f.features).map(([k, v]) => `${k}: ${fmtInt(v)}`).join(', ')) : '—',
    ]),
  );
  const pipeline = table(
    ['Pas', 'Stare', 'Durată', 'Detalii'],
    r.pipeline.map((s) => [
      escapeHtml(s.label),
      `<span class="${s.status}">${STATUS_RO[s.status]}</span>`,
      fmtMs(s.durationMs),
      escapeHtml(
        s.detail +
          (s.fetched ? ` (${Object.entries(s.fetched).map(([k, v]) => `${k}: ${fmtInt(v)}`).join(', ')})` : ''),
      ),
    ]),
    [2],
  );
  return page(
    r.title,
    `<h1>${escapeHtml(r.title)}</h1>\n${facts}\n<h2>Fișiere</h2>\n${files}\n<h2>Etapele exportului</h2>\n${pipeline}`,
  );
}


export function qualityReportHtml(q: QualityReport, title: string): string {
  const counts = table(
    ['Strat', 'Total', 'Cu geometrie', 'Fără geometrie', 'Importate fără geometrie', 'Îmbogățite', 'Geometrii invalide reparate', 'Nr. cadastrale duplicate', 'Geometrii duplicate'],
    q.layers.map((l) => [
      escapeHtml(layerLabel(l.layerId)),
      fmtInt(l.total),
      fmtInt(l.withGeometry),
      fmtInt(l.withoutGeometry),
      fmtInt(l.noGeometryImports),
      fmtInt(l.enriched),
      fmtInt(l.invalidGeometries),
      `${fmtInt(l.duplicateCadastralRefs.groups)} (${fmtInt(l.duplicateCadastralRefs.records)} înregistrări)`,
      `${fmtInt(l.duplicateGeometries.groups)} (${fmtInt(l.duplicateGeometries.records)} înregistrări)`,
    ]),
    [1, 2, 3, 4, 5, 6],
  );
  const missing = table(
    ['Câmp', 'Parcele îmbogățite fără valoare'],
    Object.entries(q.missingFields.byField).map(([k, v]) => [escapeHtml(k), fmtInt(v)]),
    [1],
  );
  const invalid = q.layers.flatMap((l) =>
    l.invalidSamples.map((s) => [escapeHtml(layerLabel(l.layerId)), String(s.objectId), escapeHtml(s.cadastralRef ?? '—'), escapeHtml(s.reason)]),
  );
  const dups = q.layers.flatMap((l) =>
    l.duplicateCadastralRefs.samples.map((s) => [escapeHtml(layerLabel(l.layerId)), escapeHtml(s.cadastralRef), fmtInt(s.count)]),
  );
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<h2>Numărul de înregistrări</h2>\n${counts}
<h2>Câmpuri lipsă</h2>
<p>Parcele îmbogățite: ${fmtInt(q.missingFields.enrichedParcels)}; parcele neîmbogățite: ${fmtInt(q.missingFields.notEnriched)}.</p>
${missing}
<h2>Geometrii invalide (reparate cu ST_MakeValid în export)</h2>
${invalid.length ? table(['Strat', 'OBJECTID', 'Nr. cadastral', 'Motiv'], invalid) : '<p>Nicio geometrie invalidă.</p>'}
<h2>Numere cadastrale duplicate</h2>
${dups.length ? table(['Strat', 'Nr. cadastral', 'Apariții'], dups, [2]) : '<p>Niciun număr cadastral duplicat.</p>'}`,
  );
}
