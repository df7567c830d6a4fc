/**
 * ESRI JSON geometry (what ArcGIS-style layer queries return) → GeoJSON and WKT, coordinates
 * unchanged (EPSG:3844 in, EPSG:3844 out). Polygon rings follow ESRI's convention: outer rings
 * clockwise, holes counter-clockwise, in one flat list; they are grouped here by orientation and
 * containment. The store's `f_esri_rings_to_geom` does the same in SQL (and also repairs invalid
 * rings); this module serves code paths that need geometry outside PostgreSQL.
 */

export type Position = [number, number];

export type EsriGeometry =
  | { rings: number[][][] }
  | { paths: number[][][] }
  | { x: number; y: number }
  | { points: number[][] };

export type GeoJsonGeometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'MultiPoint'; coordinates: Position[] }
  | { type: 'LineString'; coordinates: Position[] }
  | { type: 'MultiLineString'; coordinates: Position[][] }
  | { type: 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] };

const pos = (p: number[]): Position => [p[0], p[1]];

function closeRing(ring: Position[]): Position[] {
  if (ring.length === 0) return ring;
  const [fx, fy] = ring[0];
  const [lx, ly] = ring[ring.length - 1];
  return fx === lx && fy === ly ? ring : [...ring, ring[0]];
}

/** Shoelace sum: negative for clockwise rings in a y-up frame. */
export function signedRingArea(ring: Position[]): number {
  let s = 0;
  for (let i = 0; i < ring.length - 1; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
  return s / 2;
}

function pointInRing([x, y]: Position, ring: Position[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** ESRI rings → polygons: clockwise rings are shells, the others holes of the shell containing them. */
function ringsToPolygons(rings: number[][][]): Position[][][] {
  const closed = rings.map((r) => closeRing(r.map(pos))).filter((r) => r.length >= 4);
  const shells: Position[][][] = [];
  const holes: Position[][] = [];
  for (const r of closed) {
    if (signedRingArea(r) <= 0) shells.push([r]);
    else holes.push(r);
  }
  // A single counter-clockwise ring is an outer ring written the other way round: keep it.
  if (shells.length === 0) return holes.map((h) => [h]);
  for (const h of holes) {
    const owner = shells.find((s) => pointInRing(h[0], s[0])) ?? shells[0];
    owner.push(h);
  }
  return shells;
}

/** ESRI JSON geometry → GeoJSON geometry; null for null or empty input. */
export function esriToGeoJson(g: EsriGeometry | null | undefined): GeoJsonGeometry | null {
  if (!g) return null;
  if ('rings' in g) {
    const polys = ringsToPolygons(g.rings ?? []);
    if (polys.length === 0) return null;
    return polys.length === 1 ? { type: 'Polygon', coordinates: polys[0] } : { type: 'MultiPolygon', coordinates: polys };
  }
  if ('paths' in g) {
    const lines = (g.paths ?? []).map((p) => p.map(pos)).filter((l) => l.length >= 2);
    if (lines.length === 0) return null;
    return lines.length === 1 ? { type: 'LineString', coordinates: lines[0] } : { type: 'MultiLineString', coordinates: lines };
  }
  if ('points' in g) {
    const pts = (g.points ?? []).map(pos);
    return pts.length ? { type: 'MultiPoint', coordinates: pts } : null;
  }
  if ('x' in g && Number.isFinite(g.x) && Number.isFinite(g.y)) return { type: 'Point', coordinates: [g.x, g.y] };
  return null;
}

const wktPos = (p: Position) => `${p[0]} ${p[1]}`;
const wktLine = (l: Position[]) => `(${l.map(wktPos).join(', ')})`;
const wktPoly = (p: Position[][]) => `(${p.map(wktLine).join(', ')})`;

/** GeoJSON geometry → WKT (no SRID; wrap in `SRID=3844;` for EWKT). */
export function geoJsonToWkt(g: GeoJsonGeometry): string {
  switch (g.type) {
    case 'Point':
      return `POINT (${wktPos(g.coordinates)})`;
    case 'MultiPoint':
      return `MULTIPOINT (${g.coordinates.map((p) => `(${wktPos(p)})`).join(', ')})`;
    case 'LineString':
      return `LINESTRING ${wktLine(g.coordinates)}`;
    case 'MultiLineString':
      return `MULTILINESTRING (${g.coordinates.map(wktLine).join(', ')})`;
    case 'Polygon':
      return `POLYGON ${wktPoly(g.coordinates)}`;
    case 'MultiPolygon':
      return `MULTIPOLYGON (${g.coordinates.map(wktPoly).join(', ')})`;
  }
}

/** ESRI JSON geometry → EWKT in EPSG:3844, or null. */
export function esriToEwkt(g: EsriGeometry | null | undefined, srid = 3844): string | null {
  const gj = esriToGeoJson(g);
  return gj ? `SRID=${srid};${geoJsonToWkt(gj)}` : null;
}
