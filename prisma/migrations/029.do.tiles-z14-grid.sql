-- Issue 31 item 3: each feature's tile geometry at z14, ready for the z14 tiles (the zoom where
-- the map's live parcel tiles start and nearly every parcel is kept). Kept in step with geom by
-- the trigger gis_features_tile_grid and filled for existing rows by the derived objects
-- (domain/store/views.ts, the rule lives in domain/tiles/density.ts gridGeomSql).
ALTER TABLE gis_features ADD COLUMN geom_z14 geometry(Geometry, 3857);
