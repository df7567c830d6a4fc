-- A UAT's last successful sync (and a UAT layer's) as one index probe: the sync tab, db-summary,
-- sync-status and the scheduler each ask it per UAT, and gis_sync_runs keeps every run of every
-- layer for years (a weekly sync of ten layers: 520 rows a UAT a year), all of which the
-- (siruta, layer_id, started_at) index made them read to find the newest done one.
CREATE INDEX IF NOT EXISTS gis_sync_runs_done_uat ON gis_sync_runs (siruta, finished_at DESC) WHERE status = 'done';
CREATE INDEX IF NOT EXISTS gis_sync_runs_done_layer ON gis_sync_runs (siruta, layer_id, finished_at DESC) WHERE status = 'done';
