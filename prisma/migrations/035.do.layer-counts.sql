-- Feature counts per UAT and layer, kept by statement triggers on gis_features (the derived
-- object 'layer-counts', domain/store/views.ts, which also fills it): the sync page's store
-- summary, /stats, /db-summary, /layers/summary, /sync-status and the catalogue's counts read
-- these few rows instead of counting the whole store on every view (about eight full scans of
-- gis_features per page view before: 0.36 s of CPU at 200,000 features, linear in the store).
-- A key's count is the sum of its rows: a writer appends its statement's delta and folds the
-- rows nobody else holds, so writers never wait on one another here (docs/store.md "Counts").
CREATE TABLE gis_layer_counts (
  siruta           integer NOT NULL,
  layer_id         text NOT NULL,
  total            bigint NOT NULL DEFAULT 0,
  with_geometry    bigint NOT NULL DEFAULT 0,
  no_geometry      bigint NOT NULL DEFAULT 0,
  enriched         bigint NOT NULL DEFAULT 0,
  reenrich_marked  bigint NOT NULL DEFAULT 0
);
CREATE INDEX gis_layer_counts_key ON gis_layer_counts (siruta, layer_id);
