/**
 * One cadastral-number label per parcel. A parcel cut by a tile edge comes as one piece per tile,
 * and a symbol layer over the tiled polygons labels each piece (two labels a parcel apart when the
 * pieces are long enough to escape collision). The page gathers the loaded pieces, keeps per
 * parcel key the largest piece and puts one point inside it, into a GeoJSON source the label
 * layer reads (style.ts PARCEL_LABEL_SOURCE). Pure: no MapLibre here.
 */

type Ring = number[][];
/** A loaded piece of a parcel: its key "<siruta>:<object id>", its number and its polygon(s). */
export interface ParcelPiece {
  key: string;
  ref: string;
  geometry: { type: string; coordinates: unknown };
}

export interface LabelPoint {
  type: 'Feature';
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: { key: string; cadastral_ref: string };
}

/** Outer rings of a Polygon or MultiPolygon (holes are not needed to size or place a label). */
function polygonsOf(g: ParcelPiece['geometry']): Ring[][] {
  if (g.type === 'Polygon') return [g.coordinates as Ring[]];
  if (g.type === 'MultiPolygon') return g.coordinates as Ring[][];
  return [];
}

/** Planar area of a ring in degrees², longitude scaled by cos(latitude) so sizes compare fairly. */
function ringArea(ring: Ring): number {
  const k = Math.cos(((ring[0]?.[1] ?? 0) * Math.PI) / 180);
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[j][0] * k + ring[i][0] * k) * (ring[j][1] - ring[i][1]);
  return Math.abs(a / 2);
}

/**
 * A point inside the polygon: on the horizontal line through the middle of its height, the middle
 * of the widest stretch inside it (even-odd over every ring, so a hole is skipped). Inside for any
 * simple polygon, concave ones too, unlike the centroid.
 */
export function innerPoint(rings: Ring[]): [number, number] | null {
  const outer = rings[0];
  if (!outer || outer.length < 4) return null;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const p of outer) {
    minY = Math.min(minY, p[1]);
    maxY = Math.max(maxY, p[1]);
  }
  const y = (minY + maxY) / 2;
  const xs: number[] = [];
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [x1, y1] = ring[j];
      const [x2, y2] = ring[i];
      if (y1 > y !== y2 > y) xs.push(x1 + ((y - y1) * (x2 - x1)) / (y2 - y1));
    }
  }
  xs.sort((a, b) => a - b);
  let best: [number, number] | null = null;
  let width = -1;
  for (let i = 0; i + 1 < xs.length; i += 2) {
    if (xs[i + 1] - xs[i] > width) {
      width = xs[i + 1] - xs[i];
      best = [(xs[i] + xs[i + 1]) / 2, y];
    }
  }
  return best;
}

/** One label point per parcel key, inside the largest of its loaded pieces. */
export function parcelLabelPoints(pieces: Iterable<ParcelPiece>): { type: 'FeatureCollection'; features: LabelPoint[] } {
  const best = new Map<string, { area: number; rings: Ring[]; ref: string }>();
  for (const piece of pieces) {
    if (!piece.ref) continue;
    for (const rings of polygonsOf(piece.geometry)) {
      const area = rings[0] ? ringArea(rings[0]) : 0;
      const seen = best.get(piece.key);
      if (!seen || area > seen.area) best.set(piece.key, { area, rings, ref: piece.ref });
    }
  }
  const features: LabelPoint[] = [];
  for (const [key, b] of best) {
    const at = innerPoint(b.rings);
    if (at) features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: at }, properties: { key, cadastral_ref: b.ref } });
  }
  return { type: 'FeatureCollection', features };
}
