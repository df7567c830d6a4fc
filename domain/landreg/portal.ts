/**
 * Typed calls of the portal's JSON services on top of LandregClient: nomenclature (counties and
 * UATs) and ArcGIS-style layer queries (count, id list, pages of features by id).
 */
import type { EsriGeometry } from '../geo/esri';
import type { LandregClient } from './client';
import { PortalMalformedError } from './errors';

export interface PortalWorkspace {
  workspaceId: number;
  code: string;
  name: string;
  countyNo: number;
  uatCount: number;
}

export interface PortalUat {
  siruta: number;
  name: string;
  officialName?: string;
  type?: number;
  workspaceId: number;
  countyName: string;
}

export interface PortalUatDetail extends PortalUat {
  areaValue?: number;
  geometry?: { rings: number[][][]; spatialReference?: { wkid: number } };
}

export type EsriAttributes = Record<string, string | number | null>;

export interface EsriFeature {
  attributes: EsriAttributes;
  geometry?: EsriGeometry | null;
}

/** ArcGIS servers cap a page at 1000 features (EXTERNAL-SERVICES.md, landreg). */
export const PORTAL_PAGE_SIZE = 1000;

function ensureArray<T>(v: unknown, what: string): T[] {
  if (!Array.isArray(v)) throw new PortalMalformedError(`${what}: array expected`);
  return v as T[];
}

export async function listWorkspaces(c: LandregClient): Promise<PortalWorkspace[]> {
  return ensureArray<PortalWorkspace>(await c.get('/adm/nomen/workspaces'), 'workspaces');
}

export async function listWorkspaceUats(c: LandregClient, workspaceId: number): Promise<PortalUat[]> {
  return ensureArray<PortalUat>(await c.get(`/adm/nomen/workspaces/${workspaceId}/uats`), 'uats');
}

export async function uatDetail(c: LandregClient, siruta: number, withGeometry: boolean): Promise<PortalUatDetail> {
  return c.get<PortalUatDetail>(`/adm/nomen/uats/${siruta}`, withGeometry ? { geometry: 'true' } : undefined);
}

/** The where clause restricting a layer to one UAT (the portal keys UATs by ADMIN_UNIT_ID = siruta). */
export function uatWhere(siruta: number, extra?: string): string {
  const base = `ADMIN_UNIT_ID = ${Math.trunc(siruta)}`;
  return extra ? `${base} AND (${extra})` : base;
}

/** ArcGIS `timestamp 'YYYY-MM-DD HH:MM:SS'` literal (UTC) of an epoch-ms instant. */
export function timestampLiteral(ms: number): string {
  return `timestamp '${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}'`;
}

const queryPath = (layerId: string) => `/map/rest/${encodeURIComponent(layerId)}/query`;

export async function countFeatures(c: LandregClient, layerId: string, where: string): Promise<number> {
  const r = await c.json<{ count?: unknown }>('POST', queryPath(layerId), { form: { where, returnCountOnly: 'true', f: 'json' } });
  if (typeof r.count !== 'number') throw new PortalMalformedError(`${layerId} count: number expected`);
  return r.count;
}

/**
 * Features matching `where` counted per UAT in one statistics query (`outStatistics` grouped by
 * ADMIN_UNIT_ID, as ArcGIS servers answer): a UAT with none is absent from the map.
 */
export async function countByUat(c: LandregClient, layerId: string, where: string): Promise<Map<number, number>> {
  const r = await c.json<{ features?: unknown }>('POST', queryPath(layerId), {
    form: {
      where,
      outStatistics: JSON.stringify([{ statisticType: 'count', onStatisticField: 'OBJECTID', outStatisticFieldName: 'N' }]),
      groupByFieldsForStatistics: 'ADMIN_UNIT_ID',
      f: 'json',
    },
  });
  const out = new Map<number, number>();
  // Some ArcGIS servers change the case of field names in statistics answers.
  const field = (a: EsriAttributes | undefined, name: string) => Object.entries(a ?? {}).find(([k]) => k.toUpperCase() === name)?.[1];
  for (const f of ensureArray<EsriFeature>(r.features, `${layerId} statistics`)) {
    const siruta = Number(field(f.attributes, 'ADMIN_UNIT_ID'));
    const n = field(f.attributes, 'N');
    if (!Number.isInteger(siruta) || typeof n !== 'number') throw new PortalMalformedError(`${layerId} statistics: ADMIN_UNIT_ID and N expected`);
    out.set(siruta, n);
  }
  return out;
}

export async function fetchObjectIds(c: LandregClient, layerId: string, where: string): Promise<number[]> {
  const r = await c.json<{ objectIds?: unknown }>('POST', queryPath(layerId), { form: { where, returnIdsOnly: 'true', f: 'json' } });
  // ArcGIS answers `objectIds: null` when nothing matches.
  if (r.objectIds === null || r.objectIds === undefined) return [];
  return ensureArray<number>(r.objectIds, `${layerId} ids`);
}

/** Features of the given object ids (at most one page), restricted by `where` too. */
export async function fetchFeaturesByIds(
  c: LandregClient,
  layerId: string,
  where: string,
  objectIds: readonly number[],
  opts: { outFields?: string; returnGeometry?: boolean } = {},
): Promise<EsriFeature[]> {
  if (objectIds.length === 0) return [];
  const r = await c.json<{ features?: unknown }>('POST', queryPath(layerId), {
    form: {
      where,
      objectIds: objectIds.join(','),
      outFields: opts.outFields ?? '*',
      returnGeometry: String(opts.returnGeometry ?? true),
      outSR: '3844',
      resultRecordCount: PORTAL_PAGE_SIZE,
      f: 'json',
    },
  });
  return ensureArray<EsriFeature>(r.features, `${layerId} features`);
}

/** Features matching `where`, following exceededTransferLimit (small answers only: debug, UAT limits). */
export async function fetchAllFeatures(c: LandregClient, layerId: string, where: string, outFields = '*', returnGeometry = true): Promise<EsriFeature[]> {
  const out: EsriFeature[] = [];
  for (let offset = 0; ; ) {
    const r = await c.json<{ features?: unknown; exceededTransferLimit?: boolean }>('POST', queryPath(layerId), {
      form: { where, outFields, returnGeometry: String(returnGeometry), outSR: '3844', resultOffset: offset, resultRecordCount: PORTAL_PAGE_SIZE, f: 'json' },
    });
    const page = ensureArray<EsriFeature>(r.features, `${layerId} features`);
    out.push(...page);
    if (!r.exceededTransferLimit || page.length === 0) return out;
    offset += page.length;
  }
}
