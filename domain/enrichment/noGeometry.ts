/**
 * Immovables the portal lists without geometry in the parcel layer (spec 4.4 no-geom-scan and
 * "Sync behaviours" 4, step N of a sync rule). The scan compares the UAT's immovable list with the
 * remote parcel layer's IMMOVABLE_ID and cadastral numbers; the import stores the unmatched ones
 * as parcels with geometrySource NO_GEOMETRY and objectId = -immovablePk (spec 2.3), deleting
 * first the stale NO_GEOMETRY records that the fresh list no longer has.
 */
import { withTransaction, type Db } from '../db/pool';
import { AppError } from '../errors';
import type { PortalImmovableListEntry } from './portalTypes';
import { resolveWorkspace, type EnrichmentDeps } from './enrich';
import type { NoGeomImport, NoGeomScan } from './jobTypes';
import { BUILDING_LAYER, NO_GEOMETRY, PARCEL_LAYER } from './store';

/** Page size of the immovable list and of the attribute scan (the portal's 1000 cap). */
export const SCAN_PAGE_SIZE = 1000;

export interface ScanOptions {
  workspacePk?: number | null;
  /** Epoch ms after which the scan stops with 504 (checked between pages). */
  deadline?: number;
  /** Called after every page (activities heartbeat here). */
  onPage?: (what: string, page: number) => void;
}

function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline) {
    throw new AppError(504, 'upstream_timeout', 'Scanarea imobilelor fără geometrie a depășit limita de 120 de secunde.');
  }
}

/** The scan's counts plus the unmatched immovables themselves (the import stores them). */
export async function scanNoGeometry(deps: EnrichmentDeps, siruta: number, opts: ScanOptions = {}): Promise<NoGeomScan & { missing: PortalImmovableListEntry[] }> {
  const ws = await resolveWorkspace(deps, siruta, opts.workspacePk);
  const [withGeometry, remoteCladiriCount] = await Promise.all([deps.portal.layerCount(PARCEL_LAYER, siruta), deps.portal.layerCount(BUILDING_LAYER, siruta)]);

  const ids = new Set<number>();
  const refs = new Set<string>();
  for (let offset = 0, page = 0; ; page++) {
    checkDeadline(opts.deadline);
    const r = await deps.portal.layerAttributesPage(PARCEL_LAYER, siruta, ['OBJECTID', 'IMMOVABLE_ID', 'NATIONAL_CADASTRAL_REFERENCE'], offset, SCAN_PAGE_SIZE);
    for (const a of r.rows) {
      if (a.IMMOVABLE_ID !== null && a.IMMOVABLE_ID !== undefined && a.IMMOVABLE_ID !== '') ids.add(Number(a.IMMOVABLE_ID));
      if (a.NATIONAL_CADASTRAL_REFERENCE) refs.add(String(a.NATIONAL_CADASTRAL_REFERENCE));
    }
    opts.onPage?.('layer', page);
    if (!r.more) break;
    offset += r.rows.length;
  }

  let totalImmovables: number;
  let matchedById = 0;
  let matchedByRef = 0;
  const missing: PortalImmovableListEntry[] = [];
  for (let page = 0; ; page++) {
    checkDeadline(opts.deadline);
    const r = await deps.portal.immovablePage(ws.workspacePk, siruta, page, SCAN_PAGE_SIZE);
    totalImmovables = r.totalElements;
    for (const imm of r.content) {
      if (ids.has(imm.immovablePk)) matchedById++;
      else if (imm.cadastralNumber && refs.has(imm.cadastralNumber)) matchedByRef++;
      else missing.push(imm);
    }
    opts.onPage?.('immovables', page);
    if (r.last || r.content.length === 0) break;
  }
  // Duplicate pages (the portal sends them now and then) must not count an immovable twice.
  const unique = [...new Map(missing.map((m) => [m.immovablePk, m])).values()];
  return {
    siruta,
    workspacePk: ws.workspacePk,
    totalImmovables,
    withGeometry,
    withoutGeometry: unique.length,
    remoteCladiriCount,
    matchedByRef,
    matchedById,
    scannedAt: new Date().toISOString(),
    missing: unique,
  };
}

/** Writes the import in one transaction: stale records out first, then the fresh list upserted. */
export async function storeNoGeometry(db: Db, siruta: number, workspacePk: number, missing: readonly PortalImmovableListEntry[]): Promise<{ imported: number; deleted: number }> {
  const objectIds = missing.map((m) => -Math.abs(m.immovablePk));
  return withTransaction(async (tx) => {
    const del = await tx.query(
      `DELETE FROM gis_features
        WHERE siruta = $1 AND layer_id = $2 AND geometry_source = $3 AND NOT (object_id = ANY($4::bigint[]))`,
      [siruta, PARCEL_LAYER, NO_GEOMETRY, objectIds],
    );
    if (missing.length === 0) return { imported: 0, deleted: del.rowCount ?? 0 };
    const attrs = missing.map((m) =>
      JSON.stringify({
        IMMOVABLE_ID: m.immovablePk,
        ADMIN_UNIT_ID: siruta,
        WORKSPACE_ID: workspacePk,
        NATIONAL_CADASTRAL_REFERENCE: m.cadastralNumber,
        LANDBOOK_NO: m.landbookNo ?? null,
        TOPO_NO: m.topoNo ?? null,
        MEASURED_AREA: m.measuredArea ?? null,
        LEGAL_AREA: m.legalArea ?? null,
        INTRAVILAN: m.intravilan ?? null,
        IMMOVABLE_TYPE: m.immovableType ?? null,
        STATUS: m.status ?? null,
      }),
    );
    const ins = await tx.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, is_active, geom, attributes, geometry_source)
       SELECT $1, $2, t.object_id, t.cadastral_ref, t.area_value, true, NULL, t.attributes, $3
         FROM unnest($4::bigint[], $5::text[], $6::float8[], $7::jsonb[]) AS t(object_id, cadastral_ref, area_value, attributes)
       ON CONFLICT ON CONSTRAINT gis_features_layer_uat_object_key DO UPDATE
         SET cadastral_ref = EXCLUDED.cadastral_ref, area_value = EXCLUDED.area_value, attributes = EXCLUDED.attributes,
             is_active = true, geometry_source = EXCLUDED.geometry_source`,
      [
        PARCEL_LAYER,
        siruta,
        NO_GEOMETRY,
        objectIds,
        missing.map((m) => m.cadastralNumber),
        missing.map((m) => m.measuredArea ?? m.legalArea ?? null),
        attrs,
      ],
    );
    return { imported: ins.rowCount ?? 0, deleted: del.rowCount ?? 0 };
  }, db);
}

/** Step N: scan, then store. */
export async function importNoGeometry(deps: EnrichmentDeps, siruta: number, opts: ScanOptions = {}): Promise<NoGeomImport> {
  const { missing, ...scan } = await scanNoGeometry(deps, siruta, opts);
  const written = await storeNoGeometry(deps.db, siruta, scan.workspacePk, missing);
  return { ...scan, ...written };
}
