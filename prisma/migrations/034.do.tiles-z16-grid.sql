-- Issue 31 item 1: each feature's tile geometry at z16 (extent 4096, exact), ready for the z16
-- tiles as geom_z14 is for z14: ST_AsMVTGeom's per-feature validation was about three quarters of
-- a z16 tile's time inside PostgreSQL. Kept in step with geom by the trigger
-- gis_features_tile_grid and filled for existing rows by the derived objects
-- (domain/store/views.ts; the rule lives in domain/tiles/density.ts gridGeomSql).
ALTER TABLE gis_features ADD COLUMN geom_z16 geometry(Geometry, 3857);
