-- Layer sync write path (issue 5, docs/sync.md "Performance"): every row a sync writes pays for
-- each index, trigger and constraint of gis_features, so the table keeps only what a query reads.

-- 1. The unique key leads with siruta: it then serves every "one UAT" and "one UAT, one layer"
--    lookup, and the separate (siruta, layer_id) index is redundant. Same name, same columns.
ALTER TABLE gis_features ADD CONSTRAINT gis_features_uat_layer_object_key_new UNIQUE (siruta, layer_id, object_id);
ALTER TABLE gis_features DROP CONSTRAINT gis_features_layer_uat_object_key;
ALTER TABLE gis_features RENAME CONSTRAINT gis_features_uat_layer_object_key_new TO gis_features_layer_uat_object_key;
DROP INDEX gis_features_uat_layer;

-- 2. sync_run_id is provenance (which run last wrote the row), never joined on: no foreign key
--    (a per-row check on every insert) and no index. A run row deleted by hand leaves a dangling
--    id, which reads as "written by a run no longer on record".
ALTER TABLE gis_features DROP CONSTRAINT gis_features_sync_run_id_fkey;
DROP INDEX gis_features_sync_run;

-- 3. Staged ids travel one row per page (an array of up to 1000 ids) instead of one row per id:
--    a full sync of 200,000 features stages 200 rows, not 200,000.
CREATE TABLE gis_sync_pending_pages (
  run_id      uuid NOT NULL REFERENCES gis_sync_runs (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('fetch', 'remove')),
  page        integer NOT NULL,
  object_ids  bigint[] NOT NULL,
  PRIMARY KEY (run_id, kind, page)
);
-- Runs in flight at upgrade time keep their plan.
INSERT INTO gis_sync_pending_pages (run_id, kind, page, object_ids)
  SELECT run_id, kind, page, array_agg(object_id ORDER BY object_id)
    FROM gis_sync_pending GROUP BY run_id, kind, page;
DROP TABLE gis_sync_pending;
ALTER TABLE gis_sync_pending_pages RENAME TO gis_sync_pending;
ALTER TABLE gis_sync_pending RENAME CONSTRAINT gis_sync_pending_pages_pkey TO gis_sync_pending_pkey;
ALTER TABLE gis_sync_pending RENAME CONSTRAINT gis_sync_pending_pages_run_id_fkey TO gis_sync_pending_run_id_fkey;
ALTER TABLE gis_sync_pending RENAME CONSTRAINT gis_sync_pending_pages_kind_check TO gis_sync_pending_kind_check;
