-- Issue 29 item 5: each enriched feature's OGC properties ready as JSON text, one column per
-- viewer class (full, restricted: without the personal keys), so an items page copies text instead
-- of building every member per feature. Kept in step with the enrichment by the trigger
-- gis_features_ogc_properties and filled for existing rows by the derived objects
-- (domain/store/views.ts; the rule lives in domain/ogc/collections.ts).
ALTER TABLE gis_features ADD COLUMN ogc_properties_full text, ADD COLUMN ogc_properties_restricted text;
