/**
 * One name label per UAT. The UAT tile sources carry polygons clipped to each tile, so a symbol
 * layer on them places one label per tile piece (the same name repeated across the screen).
 * Instead, the browser reads the whole country once from a coarse UAT source (a handful of
 * low-zoom tiles), keeps the largest piece of each UAT, takes a point well inside it and serves
 * those points as a GeoJSON source: exactly one label per UAT at every zoom.
 *
 * The tiles are the same /tiles URLs the map uses (session cookie, same origin). A server-side
 * label point (e.g. ST_PointOnSurface in the UAT views) would make this unnecessary.
 */
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import type { CatalogSource } from './style';
import { lat2y, lon2x } from './tileMath';
import { vectorTile } from '../api';

type Ring = [number, number][];
type Polygon = Ring[];

export interface UatLabelPoint {
  siruta: number;
  name: string;
  area: number;
  lon: number;
  lat: number;
}

/** Preferred coarse source and zoom: about 150 m per tile unit over six tiles for Romania. */
const LABEL_SOURCES: [string, number][] = [
  ['gis_uats_z5', 6],
  ['gis_uats_z0', 4],
  ['gis_uats_z8', 8],
];

/** Shoelace area of a polygon (outer ring minus holes), in squared degrees: only compared. */
function polygonArea(p: Polygon): number {
  let total = 0;
  p.forEach((ring, i) => {
    let a = 0;
    for (let j = 0, k = ring.length - 1; j < ring.length; k = j++) a += (ring[k][0] - ring[j][0]) * (ring[k][1] + ring[j][1]);
    total += i === 0 ? Math.abs(a / 2) : -Math.abs(a / 2);
  });
  return total;
}

/**
 * A point well inside a polygon: on a few horizontal scan lines, the midpoint of the widest
 * inside stretch (even-odd rule over every ring, so holes count); the widest one wins.
 */
export function interiorPoint(p: Polygon): [number, number] | null {
  const outer = p[0];
  if (!outer || outer.length < 3) return null;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const [, y] of outer) {
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  let best: [number, number] | null = null;
  let bestWidth = -1;
  const lines = 9;
  for (let i = 1; i <= lines; i++) {
    // Lines nearer the middle get a small bonus, so a label does not hug the top or bottom.
    const t = i / (lines + 1);
    const y = minY + (maxY - minY) * t;
    const xs: number[] = [];
    for (const ring of p) {
      for (let j = 0, k = ring.length - 1; j < ring.length; k = j++) {
        const [x1, y1] = ring[k];
        const [x2, y2] = ring[j];
        if (y1 > y !== y2 > y) xs.push(x1 + ((y - y1) / (y2 - y1)) * (x2 - x1));
      }
    }
    xs.sort((a, b) => a - b);
    const weight = 1 - 0.3 * Math.abs(t - 0.5);
    for (let j = 0; j + 1 < xs.length; j += 2) {
      const w = (xs[j + 1] - xs[j]) * weight;
      if (w > bestWidth) {
        bestWidth = w;
        best = [(xs[j] + xs[j + 1]) / 2, y];
      }
    }
  }
  return best;
}

/** Label points for every UAT inside `bounds` (west, south, east, north). */
export async function loadUatLabelPoints(catalog: CatalogSource[], bounds: [number, number, number, number]): Promise<UatLabelPoint[]> {
  const byName = new Map(catalog.map((s) => [s.name, s]));
  const pickedSource = LABEL_SOURCES.map(([name, z]) => [byName.get(name), z] as const).find(([s]) => s);
  if (!pickedSource) return [];
  const [source, preferredZ] = pickedSource as readonly [CatalogSource, number];
  const z = Math.min(Math.max(preferredZ, source.minzoom), source.maxzoom);
  const [west, south, east, north] = bounds;
  const tiles: [number, number][] = [];
  for (let x = lon2x(west, z); x <= lon2x(east, z); x++) for (let y = lat2y(north, z); y <= lat2y(south, z); y++) tiles.push([x, y]);

  // siruta → the largest piece seen so far (pieces of one UAT come from neighbouring tiles).
  const best = new Map<number, { name: string; area: number; uatArea: number; polygon: Polygon }>();
  await Promise.all(
    tiles.map(async ([x, y]) => {
      // A tile that fails only leaves its labels out.
      const buf = await vectorTile(source.name, z, x, y).catch(() => null);
      if (!buf) return;
      const layer = new VectorTile(new PbfReader(buf)).layers[source.layer];
      if (!layer) return;
      for (let i = 0; i < layer.length; i++) {
        const f = layer.feature(i);
        const siruta = Number(f.properties.siruta);
        const name = f.properties.name;
        if (!siruta || typeof name !== 'string') continue;
        const g = f.toGeoJSON(x, y, z).geometry;
        const polygons: Polygon[] = g.type === 'Polygon' ? [g.coordinates as Polygon] : g.type === 'MultiPolygon' ? (g.coordinates as Polygon[]) : [];
        for (const polygon of polygons) {
          const area = polygonArea(polygon);
          const seen = best.get(siruta);
          if (!seen || area > seen.area) best.set(siruta, { name, area, uatArea: Number(f.properties.area_value) || 0, polygon });
        }
      }
    }),
  );

  const out: UatLabelPoint[] = [];
  for (const [siruta, b] of best) {
    const pt = interiorPoint(b.polygon);
    if (pt) out.push({ siruta, name: b.name, area: b.uatArea, lon: pt[0], lat: pt[1] });
  }
  return out;
}

export function labelPointsGeoJson(points: UatLabelPoint[]): GeoJSON.FeatureCollection<GeoJSON.Point> {
  return {
    type: 'FeatureCollection',
    features: points.map((p) => ({
      type: 'Feature',
      id: p.siruta,
      geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
      properties: { siruta: p.siruta, name: p.name, area_value: p.area },
    })),
  };
}
