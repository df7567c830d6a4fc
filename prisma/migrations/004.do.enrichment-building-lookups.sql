-- Building facts of the enrichment (domain/enrichment/store.ts buildingFactsFor, docs/enrichment.md
-- "Performance"): a parcel's buildings are found by three lookups, one per match rule, each served
-- by an index over active buildings of a UAT. The expressions must stay exactly those of the query.
-- Rule 1: the building's IMMOVABLE_ID equals the parcel's.
CREATE INDEX gis_features_building_immovable ON gis_features (siruta, (attributes->>'IMMOVABLE_ID'))
  WHERE layer_id = 'CLADIRI_ACTIVE' AND is_active;
-- Rule 2: the building's number with its `-C<n>` suffix stripped equals the parcel's number.
CREATE INDEX gis_features_building_parcel_ref ON gis_features (siruta, regexp_replace(cadastral_ref, '-C[0-9]+$', ''))
  WHERE layer_id = 'CLADIRI_ACTIVE' AND is_active;
-- Rule 3 (a point of the building inside the parcel) uses gis_features_geom_gist through `&&`.
