/**
 * TileJSON 3.0.0 documents for the sources and the catalog of every source. Tile URLs are
 * absolute, from config.app.publicUrl, so a MapLibre style works wherever it is loaded from.
 */
import { config } from '../config';
import { DETAIL_MINZOOM } from './density';
import { tileSource, TILE_SOURCES, type TileSourceRecord } from './sources';
import { errors } from '../errors';

/** Romania with a margin, WGS84 [west, south, east, north]: every UAT lies inside. */
export const ROMANIA_BOUNDS: [number, number, number, number] = [20.2, 43.6, 29.8, 48.3];
export const ROMANIA_CENTER: [number, number, number] = [24.97, 45.94, 6];

export interface TileJson {
  tilejson: '3.0.0';
  name: string;
  description: string;
  version: string;
  attribution: string;
  scheme: 'xyz';
  tiles: string[];
  minzoom: number;
  maxzoom: number;
  bounds: [number, number, number, number];
  center: [number, number, number];
  vector_layers: Array<{ id: string; description: string; minzoom: number; maxzoom: number; fields: Record<string, string> }>;
}

const ATTRIBUTION = 'Date cadastrale © ANCPI';

function base(): string {
  return config.app.publicUrl.replace(/\/+$/, '');
}

export function tileUrlTemplate(source: string): string {
  return `${base()}/tiles/${source}/{z}/{x}/{y}`;
}

/** A field's TileJSON description: its type first, then what it is and from which zoom it is there. */
function fieldDescription(layer: TileSourceRecord, f: TileSourceRecord['fields'][number]): string {
  const from = f.minzoom !== undefined && f.minzoom > layer.minzoom ? `, de la zoom ${f.minzoom}` : '';
  return `${f.type}${from}: ${f.description}`;
}

/** The layer description says how features are identified when the feature id carries it. */
function layerDescription(layer: TileSourceRecord): string {
  if (!layer.featureId) return layer.description;
  const reduced = layer.fields.some((f) => f.minzoom !== undefined && f.minzoom > layer.minzoom);
  return `${layer.description}. Id-ul fiecărui element MVT este ${layer.featureId.description}${
    reduced ? `; sub zoom ${DETAIL_MINZOOM} tile-urile conțin doar atributele folosite de hartă la acel zoom` : ''
  }.`;
}

export function tileJsonFor(layer: TileSourceRecord, version: number): TileJson {
  return {
    tilejson: '3.0.0',
    name: layer.name,
    description: layer.description,
    version: `1.0.${version}`,
    attribution: ATTRIBUTION,
    scheme: 'xyz',
    tiles: [tileUrlTemplate(layer.name)],
    minzoom: layer.minzoom,
    maxzoom: layer.maxzoom,
    bounds: ROMANIA_BOUNDS,
    center: [ROMANIA_CENTER[0], ROMANIA_CENTER[1], Math.max(layer.minzoom, Math.min(layer.maxzoom, ROMANIA_CENTER[2]))],
    vector_layers: [
      {
        id: layer.name,
        description: layerDescription(layer),
        minzoom: layer.minzoom,
        maxzoom: layer.maxzoom,
        // TileJSON 3.0.0 `fields`: attribute name → description; the value type leads it, and an
        // attribute that only detailed tiles carry says from which zoom (domain/tiles/sources.ts).
        fields: Object.fromEntries(layer.fields.map((f) => [f.name, fieldDescription(layer, f)])),
      },
    ],
  };
}

export function tileJson(source: string, version: number): TileJson {
  const layer = tileSource(source);
  if (!layer) throw errors.notFound(`Sursa de tile-uri „${source}” nu există.`);
  return tileJsonFor(layer, version);
}

export interface CatalogEntry {
  name: string;
  description: string;
  kind: TileSourceRecord['kind'];
  minzoom: number;
  maxzoom: number;
  layer: string;
  fields: string[];
  tilejson: string;
  tiles: string;
  version: number;
}

export function tileCatalog(versions: Map<string, { version: number }>) {
  const sources: CatalogEntry[] = TILE_SOURCES.map((l) => ({
    name: l.name,
    description: l.description,
    kind: l.kind,
    minzoom: l.minzoom,
    maxzoom: l.maxzoom,
    layer: l.name,
    fields: l.fields.map((f) => f.name),
    tilejson: `${base()}/tiles/${l.name}`,
    tiles: tileUrlTemplate(l.name),
    version: versions.get(l.name)?.version ?? 0,
  }));
  return {
    sources,
    overview: { url: `${base()}/tiles/overview.pmtiles`, format: 'pmtiles' as const },
    mode: config.tiles.serverUrl ? ('proxy' as const) : ('postgis' as const),
  };
}
