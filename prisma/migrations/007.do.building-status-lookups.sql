-- Building status tiles (tiles.gis_cladiri_status, domain/store/views.ts): every building looks
-- up BUILD_LEGAL of its parent parcel among the *enriched* parcels of its UAT, by number and else
-- by the parcel under its interior point. Indexes over enriched parcels only answer both lookups
-- from a set that is empty or small until enrichment runs, instead of probing every parcel: the
-- densest z14 building tile of the bench UAT went from ~180 ms to ~15 ms (docs/tiles.md). A sync's
-- inserts (enrichment NULL) never enter them. The predicates must stay those of the view's query.
CREATE INDEX gis_features_enriched_parcel_ref ON gis_features (siruta, cadastral_ref)
  WHERE layer_id = 'TERENURI_ACTIVE' AND enrichment IS NOT NULL;
CREATE INDEX gis_features_enriched_parcel_geom ON gis_features USING gist (geom)
  WHERE layer_id = 'TERENURI_ACTIVE' AND enrichment IS NOT NULL;
