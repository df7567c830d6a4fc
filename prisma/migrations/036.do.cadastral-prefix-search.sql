-- The map's cadastral-number search (domain/geoportal/search.ts searchParcels) reads its page
-- length by length through this index: for each length from the typed number's up, the first
-- `limit` references with that prefix in (reference, UAT) order, so a search reads about
-- `limit` rows per length whatever the store holds. The trigram index it replaces handed every
-- reference starting with the typed digits to a sort: one keystroke "1" read and sorted a ninth
-- of the parcels (178 ms on the bench store's 200,000; seconds at the country's 16 M). Nothing
-- else searched references by trigram (exact lookups use gis_features_uat_cadref).
-- text_pattern_ops: LIKE 'prefix%' as an index range whatever the database's collation.
CREATE INDEX gis_features_cadref_prefix ON gis_features (layer_id, length(cadastral_ref), cadastral_ref text_pattern_ops, siruta);
DROP INDEX gis_features_cadref_trgm;
