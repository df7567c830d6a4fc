-- Issue 31: a building's keys to its parent parcel, ready for the building status tiles
-- (tiles.gis_cladiri_status looks up the parent's BUILD_LEGAL per building): the parcel number its
-- own number names ('<parcel>-C<n>') and a point inside it. Both depend on the building row alone;
-- kept in step by the trigger gis_features_building_parent and filled for existing rows by the
-- derived objects (domain/store/views.ts).
ALTER TABLE gis_features ADD COLUMN parent_ref text, ADD COLUMN interior_point geometry(Point, 3844);
