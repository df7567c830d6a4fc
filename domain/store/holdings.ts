/**
 * SQL: does the store hold features of UAT `siruta` in layer `layer` (both SQL expressions), as
 * one probe of an index led by (siruta, layer_id), whatever the planner's statistics say.
 *
 * Not `EXISTS (… WHERE f.siruta = u.siruta AND f.layer_id = …)` where the UAT comes from another
 * row: PostgreSQL then estimates its selectivity as one over the number of UATs the store holds,
 * so a store of one large UAT (an office's first, or the bench's) makes it expect a match at the
 * first row of a sequential scan, and every UAT the store does not hold costs a scan of the whole
 * table (the map's search, a UAT name as it is typed: 90–110 ms on the bench store's 200,000
 * parcels, and growing with the store). The first key at or after (siruta, layer), read in the
 * index's order, is an index probe under any statistics.
 */
export function holdsLayerSql(siruta: string, layer: string): string {
  return `COALESCE((SELECT (f.siruta, f.layer_id) = (${siruta}, ${layer}) FROM gis_features f
            WHERE (f.siruta, f.layer_id) >= (${siruta}, ${layer}) ORDER BY f.siruta, f.layer_id LIMIT 1), false)`;
}

/**
 * SQL: the store's feature counts per UAT and layer, one row per key holding features: `siruta`,
 * `layer_id`, `total`, `with_geometry`, `no_geometry`, `enriched`, `reenrich_marked` (bigint).
 * Read from gis_layer_counts (migration 035), where a key's count is the sum of a few rows the
 * write triggers append and fold (domain/store/views.ts, derived object `layer-counts`): a few rows
 * per UAT read, never the features counted.
 */
export const LAYER_COUNTS_SQL = `(SELECT siruta, layer_id, sum(total) AS total, sum(with_geometry) AS with_geometry, sum(no_geometry) AS no_geometry,
         sum(enriched) AS enriched, sum(reenrich_marked) AS reenrich_marked
    FROM gis_layer_counts GROUP BY siruta, layer_id HAVING sum(total) > 0)`;
