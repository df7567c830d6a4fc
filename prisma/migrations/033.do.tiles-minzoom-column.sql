-- Issue 32 item 2: each feature's lowest generalised tile zoom, computed once when its geometry
-- is written (trigger gis_features_tile_minzoom) instead of once per z10-z13 partial index on
-- every insert: the four index predicates `f_tile_minzoom(geom_3857, object_id) <= z` evaluated
-- the PL/pgSQL rule four times a row, about a third of a sync's insert. The rule, the trigger,
-- the fill of existing rows and the indexes over the column are derived objects
-- (domain/store/views.ts; the rule lives in domain/tiles/density.ts).
ALTER TABLE gis_features ADD COLUMN tile_minzoom smallint;
