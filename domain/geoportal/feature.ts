/**
 * GET /api/geoportal/feature (CONTRACT.md section 4): one feature by uuid or by its unique key
 * (layer, siruta, objectId), with its enrichment and its geometry as GeoJSON in WGS84.
 */
import { errors } from '../errors';
import type { Db } from '../db/pool';
import { redactAttributes, redactEnrichment } from './rules';
import type { FeatureView, RestrictedFeatureView, Viewer } from './types';

export type FeatureKey = { id: string } | { siruta: number; objectId: number; layerId: string };

type Row = {
  id: string;
  layer_id: string;
  siruta: number;
  uat_name: string | null;
  object_id: string;
  cadastral_ref: string | null;
  area_value: number | null;
  is_active: boolean;
  geometry_source: string | null;
  attributes: Record<string, unknown> | null;
  enrichment: Record<string, unknown> | null;
  enriched_at: Date | null;
  geometry: FeatureView['geometry'];
};

const SELECT = `SELECT f.id, f.layer_id, f.siruta, u.name AS uat_name, f.object_id, f.cadastral_ref, f.area_value,
       f.is_active, f.geometry_source, f.attributes, f.enrichment, f.enriched_at,
       ST_AsGeoJSON(ST_Transform(f.geom, 4326), 8)::json AS geometry
  FROM gis_features f
  LEFT JOIN gis_uats u ON u.siruta = f.siruta`;

export async function getFeature(
  key: FeatureKey,
  viewer: Viewer,
  db: Db,
): Promise<{ feature: FeatureView | RestrictedFeatureView }> {
  const r =
    'id' in key
      ? await db.query<Row>(`${SELECT} WHERE f.id = $1`, [key.id])
      : await db.query<Row>(`${SELECT} WHERE f.layer_id = $1 AND f.siruta = $2 AND f.object_id = $3`, [
          key.layerId,
          key.siruta,
          key.objectId,
        ]);
  const row = r.rows[0];
  if (!row) throw errors.notFound('Obiectul nu există în baza de date locală.');
  // Spec 5.6: the basic panel shows the cadastral reference, the area and a restriction notice.
  if (viewer.basicPanel) {
    return { feature: { cadastralRef: row.cadastral_ref, areaValue: row.area_value, restricted: true } };
  }
  return {
    feature: {
      id: row.id,
      layerId: row.layer_id,
      siruta: row.siruta,
      uatName: row.uat_name,
      objectId: Number(row.object_id),
      cadastralRef: row.cadastral_ref,
      areaValue: row.area_value,
      isActive: row.is_active,
      geometrySource: row.geometry_source,
      attributes: redactAttributes(row.attributes, viewer),
      enrichment: redactEnrichment(row.enrichment, viewer),
      enrichedAt: row.enriched_at ? row.enriched_at.toISOString() : null,
      geometry: row.geometry,
    },
  };
}
