/**
 * Activities of the enrichment (docs/enrichment.md). Thin: each is one call into
 * domain/enrichment. Portal-bound ones (batch enrichment, no-geometry import) run on the
 * rate-limited `landreg` queue and heartbeat so a retry resumes; queue reads run on `store`.
 */
import { withTemporalFailures } from './failures';
import { Context } from '@temporalio/activity';
import type { BatchResult, EnrichCursor, EnrichmentService, NoGeomImport, ParcelToEnrich } from '../domain/enrichment/service';
import { keptAlive } from './heartbeat';

/** store queue: reading the enrichment queue. */
export function createEnrichmentStoreActivities(enrichment: EnrichmentService) {
  return keptAlive({
    async countParcelsToEnrich(a: { siruta: number; force?: boolean }): Promise<number> {
      return enrichment.countParcelsToEnrich(a.siruta, a.force ?? false);
    },
    async nextParcelsToEnrich(a: { siruta: number; after: EnrichCursor | null; size: number; force?: boolean }): Promise<ParcelToEnrich[]> {
      return enrichment.nextParcelsToEnrich(a.siruta, a.after, a.size, a.force ?? false);
    },
  });
}

/** landreg queue: portal calls (the service's portal client, on the process's store). */
export function createEnrichmentPortalActivities(enrichment: EnrichmentService) {
  return {
    /**
     * Enriches one batch. The ids already written are heartbeated, so a retry after a crash or a
     * timeout skips them instead of asking the portal again.
     */
    async enrichParcelBatch(a: { siruta: number; parcels: ParcelToEnrich[] }): Promise<BatchResult> {
      const ctx = Context.current();
      const done = new Set<string>((ctx.info.heartbeatDetails as string[] | undefined) ?? []);
      const resumed = done.size;
      const r = await withTemporalFailures(() =>
        enrichment.enrichParcelBatch(a.siruta, a.parcels, {
          skip: done,
          // The history names the enrichment run that saw a change (docs/notifications.md).
          jobId: ctx.info.workflowExecution?.workflowId,
          onDone: (id) => {
            done.add(id);
            ctx.heartbeat([...done]);
          },
        }),
      );
      // Parcels a previous attempt wrote count as enriched for the workflow's totals.
      return { ...r, enriched: r.enriched + resumed };
    },

    /** Step N (spec 4.4 "Sync behaviours" 4): scan the immovable list and store the parcels without geometry. */
    async importNoGeometry(a: { siruta: number; workspacePk?: number | null }): Promise<NoGeomImport> {
      const ctx = Context.current();
      return withTemporalFailures(() => enrichment.importNoGeometry(a.siruta, { workspacePk: a.workspacePk, onPage: (what, page) => ctx.heartbeat({ what, page }) }));
    },
  };
}

export type { EnrichCursor, ParcelToEnrich };
export type { NoGeomImport };
export type EnrichmentStoreActivities = ReturnType<typeof createEnrichmentStoreActivities>;
export type EnrichmentPortalActivities = ReturnType<typeof createEnrichmentPortalActivities>;
