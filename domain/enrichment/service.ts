/**
 * The enrichment's door (docs/architecture.md "Areas"): the cadastral and owner searches, one
 * parcel's enrichment and stored view, a UAT's dashboard, the no-geometry scan, and the steps of
 * the enrichment jobs (the queue's reads, a batch, the no-geometry import). Built once per process
 * by `domain/services.ts`, with one portal client on the process's store, and handed to the
 * enrichment routes (api/routes/landregEnrichment.ts), the parcel-sync pages (through the load
 * context) and the enrichment activities. Each call that answers a person applies the viewer it is
 * given. Its pure rules are in `rules.ts`, its jobs' types in `jobTypes.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import type { Viewer } from '../auth/rules';
import type { Caller } from '../concurrency';
import { heavyRead } from '../db/heavyRead';
import { LandregClient } from '../landreg/service';
import { uatDashboard } from './dashboard';
import { enrichOne, enrichParcelBatch, searchCadastral, searchOwner, storedParcel, type EnrichmentDeps } from './enrich';
import { importNoGeometry, scanNoGeometry, type ScanOptions } from './noGeometry';
import { enrichmentPortal } from './portal';
import { countParcelsToEnrich, nextParcelsToEnrich, searchOwnersLocal, type EnrichCursor, type ParcelToEnrich } from './store';

export type { BatchResult, CadastralSearchResult, OwnerSearchResult } from './enrich';
export type { UatDashboard } from './dashboard';
export type { NoGeomImport, NoGeomScan } from './jobTypes';
export type { EnrichCursor, ParcelToEnrich } from './store';

export function createEnrichmentService({ store, mail, outside, clock }: AreaDeps) {
  const db = store.pool;
  const deps: EnrichmentDeps = { db, deliverMail: mail, portal: enrichmentPortal(new LandregClient({ db, baseUrl: outside.landregBaseUrl, requestsPerSecond: outside.landregRequestsPerSecond })), now: clock };
  return {
    searchCadastral: (req: Parameters<typeof searchCadastral>[1], viewer: Viewer) => searchCadastral(deps, req, viewer),
    searchOwner: (req: Parameters<typeof searchOwner>[1], viewer: Viewer) => searchOwner(deps, req, viewer),
    /** One stored parcel enriched through the cadastral search (answered from the store while fresh, unless `force`). */
    enrichOne: (ref: { id: string } | { siruta: number; objectId: number }, viewer: Viewer, force = false) => enrichOne(deps, ref, viewer, force),
    storedParcel: (id: string, viewer: Viewer) => storedParcel(db, id, viewer),
    /** A heavy read (domain/db/heavyRead.ts): the caller's slot, one connection, cancelled when the caller leaves. */
    uatDashboard: (siruta: number, viewer: Viewer, caller: Caller) => heavyRead(db, caller, (conn) => uatDashboard(conn, siruta, viewer)),
    /** The scan's counts plus the unmatched immovables themselves. */
    scanNoGeometry: (siruta: number, opts: ScanOptions = {}) => scanNoGeometry(deps, siruta, opts),
    /** The enrichParcels job's steps: the queue of a UAT, a batch enriched, the no-geometry import. */
    countParcelsToEnrich: (siruta: number, force = false) => countParcelsToEnrich(db, siruta, force),
    nextParcelsToEnrich: (siruta: number, after: EnrichCursor | null, size: number, force = false) => nextParcelsToEnrich(db, siruta, after, size, force),
    enrichParcelBatch: (siruta: number, parcels: readonly ParcelToEnrich[], opts: Parameters<typeof enrichParcelBatch>[3] = {}) =>
      enrichParcelBatch(deps, siruta, parcels, opts),
    importNoGeometry: (siruta: number, opts: ScanOptions = {}) => importNoGeometry(deps, siruta, opts),
    /** The two halves of the owner search apart, unredacted, for the bench (scripts/bench/30-enrichment.ts): the store's matches, a portal ownership tree. */
    searchOwnersLocal: (siruta: number, tokens: readonly string[], limit?: number) => searchOwnersLocal(db, siruta, tokens, limit),
    ownershipTree: (immovablePk: number) => deps.portal.ownershipTree(immovablePk),
  };
}

export type EnrichmentService = ReturnType<typeof createEnrichmentService>;
