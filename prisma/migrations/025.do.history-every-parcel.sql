-- Issue 30 item 1: every feature's history, written by the sync's page upsert and the enrichment
-- write themselves (domain/landreg/sync/store.ts, domain/enrichment/store.ts), not only for
-- followed parcels. The watchlist's snapshots are no longer needed: notifications are built on
-- these rows (domain/notifications/watch.ts).

-- Who saw the change: a sync run (sync_run_id) or an enrichment (job_id: the enrichment
-- workflow's id, null for a single parcel enriched from the map).
ALTER TABLE feature_changes
  ADD COLUMN source text NOT NULL DEFAULT 'sync' CHECK (source IN ('sync', 'enrichment')),
  ADD COLUMN job_id text;

-- Rows of UATs nobody follows are written already notified, so the pending index stays as small
-- as the followed changes waiting for their notification.
ALTER TABLE feature_changes ALTER COLUMN notified SET DEFAULT true;

-- The index on (siruta, at) served the watch hook's per-UAT scan; the pending index does that
-- now and every history row pays for each index it has.
DROP INDEX IF EXISTS feature_changes_uat_at;

DROP TABLE IF EXISTS watch_snapshots;

-- Features whose stored fields changed in the run (added and removed are counted apart).
ALTER TABLE gis_sync_runs ADD COLUMN changed integer NOT NULL DEFAULT 0;
