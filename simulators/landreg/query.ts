/**
 * ArcGIS-REST `query` over one layer: where / objectIds filtering, ids-only and count-only
 * answers, `outStatistics` counts grouped by `groupByFieldsForStatistics`, outFields, paging capped at 1000 features with exceededTransferLimit, ESRI JSON
 * geometry in EPSG:3844 (or WGS84 when outSR=4326 is asked).
 */
import { fromStereo70 } from '../shared/stereo70';
import { ID_BLOCK } from './generator';
import { layerDef, type LayerDef } from './layers';
import type { AttrValue, SimFeature } from './model';
import type { SimStore } from './store';
import { WhereError, compileWhere, parseWhere, pinnedValues } from './where';

export const MAX_RECORD_COUNT = 1000;

/**
 * How a query is counted in /__sim/requests (EXTERNAL-SERVICES.md): a feature query asked with
 * `returnGeometry=false` is an attribute read (`attributes`), not a feature download.
 */
export type QueryKind = 'features' | 'attributes' | 'ids' | 'count' | 'statistics';

export interface QueryOutcome {
  kind: QueryKind;
  /** Set when the query is restricted to exactly one UAT through ADMIN_UNIT_ID. */
  siruta: number | null;
  /** The UATs the where clause pins through ADMIN_UNIT_ID (= or IN), null when it pins none. */
  sirutas: number[] | null;
  body: unknown;
}

/** One `outStatistics` entry (ArcGIS REST): the simulator computes `count`, `min`, `max` and `sum`. */
const STATISTIC_TYPES = ['count', 'min', 'max', 'sum'] as const;
interface OutStatistic {
  statisticType: (typeof STATISTIC_TYPES)[number];
  onStatisticField: string;
  outStatisticFieldName: string;
}

function parseOutStatistics(raw: string, fieldNames: Set<string>): OutStatistic[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new WhereError('outStatistics must be a JSON array');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new WhereError('outStatistics must be a non-empty JSON array');
  return parsed.map((s: Record<string, unknown>) => {
    const type = String(s?.statisticType ?? '').toLowerCase();
    const field = String(s?.onStatisticField ?? '').toUpperCase();
    if (!(STATISTIC_TYPES as readonly string[]).includes(type)) throw new WhereError(`statisticType ${type} is not supported`);
    if (!fieldNames.has(field)) throw new WhereError(`onStatisticField ${field} is not a field of the layer`);
    return { statisticType: type as OutStatistic['statisticType'], onStatisticField: field, outStatisticFieldName: String(s.outStatisticFieldName || `${type}_${field}`) };
  });
}

/** Statistics over the matches, one row per distinct value of the group-by fields (ArcGIS's answer shape). */
function statistics(matches: readonly SimFeature[], stats: readonly OutStatistic[], groupBy: readonly string[]) {
  const groups = new Map<string, { key: AttrValue[]; rows: SimFeature[] }>();
  for (const f of matches) {
    const key = groupBy.map((g) => f.attributes[g] ?? null);
    const k = JSON.stringify(key);
    const g = groups.get(k) ?? groups.set(k, { key, rows: [] }).get(k)!;
    g.rows.push(f);
  }
  if (groupBy.length === 0 && groups.size === 0) groups.set('[]', { key: [], rows: [] });
  return [...groups.values()].map(({ key, rows }) => {
    const attributes: Record<string, AttrValue> = {};
    groupBy.forEach((g, i) => (attributes[g] = key[i]));
    for (const s of stats) {
      const values = rows.map((r) => r.attributes[s.onStatisticField]).filter((v): v is number => typeof v === 'number');
      attributes[s.outStatisticFieldName] =
        s.statisticType === 'count'
          ? rows.filter((r) => (r.attributes[s.onStatisticField] ?? null) !== null).length
          : values.length === 0
            ? null
            : s.statisticType === 'sum'
              ? values.reduce((a, b) => a + b, 0)
              : values.reduce((a, b) => (s.statisticType === 'min' ? Math.min(a, b) : Math.max(a, b)));
    }
    return { attributes };
  });
}

const truthy = (v: string | undefined) => v !== undefined && /^(true|1|yes)$/i.test(v);

export function esriError(message: string, details: string[] = []) {
  return { error: { code: 400, message, details } };
}

function parseIdList(s: string | undefined): number[] | null {
  if (!s || s.trim() === '') return null;
  const ids = s.split(',').map((x) => Number(x.trim()));
  if (ids.some((n) => !Number.isInteger(n))) throw new WhereError('objectIds must be integers');
  return ids;
}

interface MatchCacheEntry {
  version: number;
  matches: SimFeature[];
}

export class QueryEngine {
  /** Paging a UAT re-runs the same filter for every page; keep the last few match lists. */
  private readonly cache = new Map<string, MatchCacheEntry>();

  constructor(private readonly store: SimStore) {}

  private candidateSirutas(ast: ReturnType<typeof parseWhere>, objectIds: number[] | null): number[] {
    const nom = this.store.nom;
    let sirutas: number[] | null = pinnedValues(ast, 'ADMIN_UNIT_ID');
    const ws = pinnedValues(ast, 'WORKSPACE_ID');
    if (ws) {
      const inWs = ws.flatMap((w) => nom.county(w)?.uats.map((u) => u.siruta) ?? []);
      sirutas = sirutas ? sirutas.filter((s) => inWs.includes(s)) : inWs;
    }
    // OBJECTIDs are allocated in per-UAT blocks, so ids alone tell which UATs to look at.
    const ids = objectIds ?? pinnedValues(ast, 'OBJECTID');
    if (ids) {
      const fromIds = [...new Set(ids.map((id) => nom.uats[Math.floor(id / ID_BLOCK) - 1]?.siruta).filter((s): s is number => s !== undefined))];
      sirutas = sirutas ? sirutas.filter((s) => fromIds.includes(s)) : fromIds;
    }
    const list = sirutas ? [...new Set(sirutas)].sort((a, b) => a - b) : this.store.dataUats().map((u) => u.siruta);
    return list.filter((s) => this.store.hasData(s));
  }

  private matches(layer: LayerDef, where: string | undefined, objectIdsParam: string | undefined): { matches: SimFeature[]; siruta: number | null; sirutas: number[] | null } {
    const ast = parseWhere(where);
    const fieldNames = new Set(layer.fields.map((f) => f.name));
    const predicate = compileWhere(ast, fieldNames);
    const objectIds = parseIdList(objectIdsParam);
    const pinned = pinnedValues(ast, 'ADMIN_UNIT_ID');
    const sirutas = pinned ? [...new Set(pinned)] : null;
    const siruta = sirutas && sirutas.length === 1 ? sirutas[0] : null;
    const key = `${layer.id}\u0001${where ?? ''}\u0001${objectIdsParam ?? ''}`;
    const hit = this.cache.get(key);
    if (hit && hit.version === this.store.version) return { matches: hit.matches, siruta, sirutas };

    // Asked by id, the features are found by binary search (a layer's features are sorted by
    // objectId), as an ArcGIS server answers an objectIds query from its id index: the answer
    // costs the page, not the UAT.
    const wanted = objectIds ? [...new Set(objectIds)].sort((a, b) => a - b) : null;
    const matches: SimFeature[] = [];
    if (layer.hasData) {
      for (const s of this.candidateSirutas(ast, objectIds)) {
        const data = this.store.get(s);
        const features = data?.layers.get(layer.id)?.features ?? [];
        for (const f of wanted ? byIds(features, wanted) : features) {
          if (predicate(f.attributes)) matches.push(f);
        }
      }
    }
    this.cache.set(key, { version: this.store.version, matches });
    if (this.cache.size > 16) this.cache.delete(this.cache.keys().next().value as string);
    return { matches, siruta, sirutas };
  }

  /**
   * Runs one query. `opts.duplicatePages` (the opt-in fault of /__sim/faults) makes the pages of
   * a query asked without `orderByFields` overlap, as an unordered paged query on a real server
   * may: each page after the first starts with the previous page's last feature (none is lost).
   */
  run(layerId: string, q: Record<string, string | undefined>, opts: { duplicatePages?: boolean } = {}): QueryOutcome {
    const layer = layerDef(layerId);
    const withGeometry = q.returnGeometry === undefined || q.returnGeometry === '' || truthy(q.returnGeometry);
    const wantsStatistics = (q.outStatistics ?? '').trim() !== '';
    const kind: QueryKind = wantsStatistics ? 'statistics' : truthy(q.returnCountOnly) ? 'count' : truthy(q.returnIdsOnly) ? 'ids' : withGeometry ? 'features' : 'attributes';
    if (!layer) return { kind, siruta: null, sirutas: null, body: esriError('Invalid or missing input parameters.', [`Layer ${layerId} not found`]) };
    let found: { matches: SimFeature[]; siruta: number | null; sirutas: number[] | null };
    let stats: OutStatistic[] = [];
    let groupBy: string[] = [];
    try {
      const fieldNames = new Set(layer.fields.map((f) => f.name));
      if (wantsStatistics) {
        stats = parseOutStatistics(q.outStatistics!, fieldNames);
        groupBy = (q.groupByFieldsForStatistics ?? '').split(',').map((g) => g.trim().toUpperCase()).filter(Boolean);
        const unknown = groupBy.find((g) => !fieldNames.has(g));
        if (unknown) throw new WhereError(`groupByFieldsForStatistics ${unknown} is not a field of the layer`);
      }
      found = this.matches(layer, q.where, q.objectIds);
    } catch (err) {
      if (err instanceof WhereError) {
        return { kind, siruta: null, sirutas: null, body: esriError('Unable to complete operation.', [`'where' parameter is invalid: ${err.message}`]) };
      }
      throw err;
    }
    const { matches, siruta, sirutas } = found;
    if (kind === 'statistics') {
      const fields = [...groupBy.map((g) => layer.fields.find((f) => f.name === g)!), ...stats.map((s) => ({ name: s.outStatisticFieldName, type: 'esriFieldTypeDouble', alias: s.outStatisticFieldName }))];
      return { kind, siruta, sirutas, body: { displayFieldName: '', fields, features: statistics(matches, stats, groupBy) } };
    }
    if (kind === 'count') return { kind, siruta, sirutas, body: { count: matches.length } };
    if (kind === 'ids') return { kind, siruta, sirutas, body: { objectIdFieldName: 'OBJECTID', objectIds: matches.map((f) => f.objectId) } };

    const offset = Math.max(0, Number.parseInt(q.resultOffset ?? '0', 10) || 0);
    const requested = Number.parseInt(q.resultRecordCount ?? '', 10);
    const pageSize = Number.isFinite(requested) && requested > 0 ? Math.min(requested, MAX_RECORD_COUNT) : MAX_RECORD_COUNT;
    const unordered = (q.orderByFields ?? '').trim() === '';
    // Page n (offset n × page size) starts n features early: each page repeats the previous one's last feature.
    const start = opts.duplicatePages && unordered ? offset - Math.floor(offset / pageSize) : offset;
    const page = matches.slice(start, start + pageSize);
    const fields = selectFields(layer, q.outFields);
    const wgs84 = q.outSR === '4326' || /"?wkid"?\s*:\s*4326/.test(q.outSR ?? '');
    const body: Record<string, unknown> = {
      displayFieldName: 'NATIONAL_CADASTRAL_REFERENCE',
      objectIdFieldName: 'OBJECTID',
      globalIdFieldName: '',
      geometryType: layer.geometryType,
      spatialReference: wgs84 ? { wkid: 4326, latestWkid: 4326 } : { wkid: 3844, latestWkid: 3844 },
      fields,
      features: page.map((f) => {
        const attributes: Record<string, AttrValue> = {};
        for (const fd of fields) attributes[fd.name] = f.attributes[fd.name] ?? null;
        return withGeometry ? { attributes, geometry: esriGeometry(layer, f, wgs84) } : { attributes };
      }),
    };
    if (start + pageSize < matches.length) body.exceededTransferLimit = true;
    return { kind, siruta, sirutas, body };
  }
}

/** The features with the given ids (ascending, distinct), in objectId order: binary search over `sorted`. */
function* byIds(sorted: readonly SimFeature[], ids: readonly number[]): Generator<SimFeature> {
  let lo = 0;
  for (const id of ids) {
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid].objectId < id) lo = mid + 1;
      else hi = mid;
    }
    if (lo < sorted.length && sorted[lo].objectId === id) yield sorted[lo];
  }
}

function selectFields(layer: LayerDef, outFields: string | undefined) {
  const wanted = (outFields ?? '').split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  if (wanted.length === 0 || wanted.includes('*')) return layer.fields;
  // ArcGIS always returns the object id; unknown names are ignored as the server does.
  return layer.fields.filter((f) => f.name === 'OBJECTID' || wanted.includes(f.name));
}

function esriGeometry(layer: LayerDef, f: SimFeature, wgs84: boolean) {
  if (!f.parts) return null;
  const parts = f.parts.map((flat) => {
    const pts: number[][] = [];
    for (let i = 0; i < flat.length; i += 2) {
      pts.push(wgs84 ? fromStereo70([flat[i], flat[i + 1]]).map((c) => Math.round(c * 1e8) / 1e8) : [flat[i], flat[i + 1]]);
    }
    return pts;
  });
  if (layer.geometryType === 'esriGeometryPolyline') return { paths: parts };
  if (layer.geometryType === 'esriGeometryPoint') return { x: parts[0][0][0], y: parts[0][0][1] };
  return { rings: parts };
}
