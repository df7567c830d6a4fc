/**
 * Which parcel a map feature is, at any zoom. Live parcel tiles carry the uuid `id` (what the
 * export takes) and the other detail attributes only from zoom 16 (docs/tiles.md "Rendering");
 * at every zoom a parcel is known by `siruta` and its MVT feature id (= object_id), the key of
 * gis_features within a layer, which the feature route also takes. The overview archive carries
 * siruta and object_id as properties.
 *
 * The selection keeps uuids for the export, so parcels picked below zoom 16 are resolved by
 * reading the zoom-16 tiles under them: the same /tiles URLs the map itself loads at that zoom
 * (same origin and session cookie, the browser's cache, the server's tile cache), decoded here.
 * That works for every user, the basic panel included, whose feature route answers no uuid.
 */
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import type { MapGeoJSONFeature } from 'maplibre-gl';
import { lat2y, lon2x } from './tileMath';
import { ApiError, vectorTile } from '../api';

/** Zoom from which parcel tiles carry every attribute, the uuid included. */
export const DETAIL_ZOOM = 16;
/** Most zoom-16 tiles one selection may read (about a screen at zoom 13). */
export const MAX_RESOLVE_TILES = 256;
const CONCURRENCY = 6;

export interface FeatureKey {
  siruta: number;
  objectId: number;
}

/** A selected parcel: its key, the uuid the export needs and its cadastral number. */
export interface ResolvedParcel {
  id: string;
  ref: string;
}

export const keyString = (k: FeatureKey) => `${k.siruta}:${k.objectId}`;

/** The key of a rendered parcel (live tile at any zoom, or the overview archive), if it has one. */
export function featureKey(f: Pick<MapGeoJSONFeature, 'id' | 'properties'>): FeatureKey | null {
  const p = f.properties ?? {};
  const siruta = Number(p.siruta);
  const objectId = Number(p.object_id ?? f.id);
  if (!Number.isSafeInteger(siruta) || siruta <= 0 || !Number.isSafeInteger(objectId)) return null;
  return { siruta, objectId };
}

/** What a zoom-16 feature says about itself: uuid and cadastral number, when it carries them. */
export function detailOf(f: Pick<MapGeoJSONFeature, 'properties'>): ResolvedParcel | null {
  const id = f.properties?.id;
  return typeof id === 'string' && id !== '' ? { id, ref: String(f.properties?.cadastral_ref ?? '') } : null;
}

export interface ResolveResult {
  /** keyString → the parcel, for every key found. */
  found: Map<string, ResolvedParcel>;
  /** The area spans more than MAX_RESOLVE_TILES zoom-16 tiles: nothing was read. */
  tooLarge: boolean;
}

/**
 * Finds the uuid of each key in the zoom-16 tiles of `source` over `bounds` ([west, south, east,
 * north], WGS84; every wanted parcel must touch it, e.g. the box drawn or the point clicked).
 */
export async function resolveParcels(
  source: { name: string; layer: string },
  keys: FeatureKey[],
  bounds: [number, number, number, number],
): Promise<ResolveResult> {
  const wanted = new Set(keys.map(keyString));
  const found = new Map<string, ResolvedParcel>();
  if (wanted.size === 0) return { found, tooLarge: false };
  const [west, south, east, north] = bounds;
  const z = DETAIL_ZOOM;
  const tiles: [number, number][] = [];
  const [x0, x1, y0, y1] = [lon2x(west, z), lon2x(east, z), lat2y(north, z), lat2y(south, z)];
  if ((x1 - x0 + 1) * (y1 - y0 + 1) > MAX_RESOLVE_TILES) return { found, tooLarge: true };
  for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) tiles.push([x, y]);

  let next = 0;
  const worker = async () => {
    while (next < tiles.length && found.size < wanted.size) {
      const [x, y] = tiles[next++];
      const bytes = await vectorTile(source.name, z, x, y).catch((err: unknown) => {
        throw new Error(`Tile-ul ${z}/${x}/${y} nu a putut fi citit (${err instanceof ApiError ? err.status : 0}).`);
      });
      if (!bytes) continue;
      const layer = new VectorTile(new PbfReader(bytes)).layers[source.layer];
      for (let i = 0; i < (layer?.length ?? 0); i++) {
        const f = layer.feature(i);
        const key = featureKey({ id: f.id, properties: f.properties });
        const detail = detailOf(f);
        if (key && detail && wanted.has(keyString(key))) found.set(keyString(key), detail);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, tiles.length) }, worker));
  return { found, tooLarge: false };
}
