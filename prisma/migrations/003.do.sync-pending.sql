-- Layer sync staging (issue 5, docs/sync.md). The plan step of a sync run writes the object ids
-- it must download (kind 'fetch', numbered into pages) and delete (kind 'remove') here, so the
-- id lists never travel through Temporal's history (200,000 ids would exceed its payload limit)
-- and a download activity retried after a crash re-reads exactly its pages. Rows go with the run.
CREATE TABLE gis_sync_pending (
  run_id     uuid NOT NULL REFERENCES gis_sync_runs (id) ON DELETE CASCADE,
  kind       text NOT NULL CHECK (kind IN ('fetch', 'remove')),
  object_id  bigint NOT NULL,
  page       integer NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, kind, object_id)
);
CREATE INDEX gis_sync_pending_page ON gis_sync_pending (run_id, kind, page);

-- The mode and size of a run are known after planning; a failed plan still leaves its run row.
ALTER TABLE gis_sync_runs ADD COLUMN pages integer NOT NULL DEFAULT 0;
