/**
 * Activities of the enrichment (docs/enrichment.md). Thin: each is one call into
 * domain/enrichment. Portal-bound ones (batch enrichment, no-geometry import) run on the
 * rate-limited `landreg` queue and heartbeat so a retry resumes; queue reads run on `store`.
 */
import { withTemporalFailures } from './failures';
import { Context } from '@temporalio/activity';
import type { Db } from '../domain/db/pool';
import { importNoGeometry, type NoGeomImport } from '../domain/enrichment/noGeometry';
import { enrichmentPortal } from '../domain/enrichment/portal';
import { enrichParcelBatch, type BatchResult } from '../domain/enrichment/service';
import { countParcelsToEnrich, nextParcelsToEnrich, type EnrichCursor, type ParcelToEnrich } from '../domain/enrichment/store';
import { LandregClient } from '../domain/landreg/service';
import type { StartDelivery } from '../domain/areaDeps';

export interface EnrichmentActivityDeps {
  db: Db;
  /** Starts the e-mails of the follow notifications an enrichment raises (temporal/mail.ts `mailDelivery`). */
  deliverMail: StartDelivery;
  /** Portal base URL; default config.landreg.baseUrl (tests point it at their own simulator). */
  landregBaseUrl?: string;
}

/** store queue: reading the enrichment queue. */
export function createEnrichmentStoreActivities({ db }: Pick<EnrichmentActivityDeps, 'db'>) {
  return {
    async countParcelsToEnrich(a: { siruta: number; force?: boolean }): Promise<number> {
      return countParcelsToEnrich(db, a.siruta, a.force ?? false);
    },
    async nextParcelsToEnrich(a: { siruta: number; after: EnrichCursor | null; size: number; force?: boolean }): Promise<ParcelToEnrich[]> {
      return nextParcelsToEnrich(db, a.siruta, a.after, a.size, a.force ?? false);
    },
  };
}

/** landreg queue: portal calls. */
export function createEnrichmentPortalActivities(deps: EnrichmentActivityDeps) {
  const { db, deliverMail } = deps;
  const portal = enrichmentPortal(new LandregClient({ db, baseUrl: deps.landregBaseUrl }));
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
        enrichParcelBatch({ db, deliverMail, portal }, a.siruta, a.parcels, {
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
      return withTemporalFailures(() => importNoGeometry({ db, deliverMail, portal }, a.siruta, { workspacePk: a.workspacePk, onPage: (what, page) => ctx.heartbeat({ what, page }) }));
    },
  };
}

export type { EnrichCursor, ParcelToEnrich };
export type { NoGeomImport };
export type EnrichmentStoreActivities = ReturnType<typeof createEnrichmentStoreActivities>;
export type EnrichmentPortalActivities = ReturnType<typeof createEnrichmentPortalActivities>;
