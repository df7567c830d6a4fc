/**
 * ESRI JSON geometry (what ArcGIS-style layer queries return) → GeoJSON, WKT and EWKB, coordinates
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

// ---- EWKB (the layer sync's COPY format: PostGIS reads it without parsing decimal text) ----------

const WKB_TYPE = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6 } as const;
const EWKB_SRID_FLAG = 0x20000000;

function lineSize(l: Position[]): number {
  return 4 + 16 * l.length;
}

function polySize(p: Position[][]): number {
  let n = 4;
  for (const r of p) n += lineSize(r);
  return n;
}

/** Bytes of the EWKB of `g` (with its SRID). */
export function ewkbSize(g: GeoJsonGeometry): number {
  let n = 9; // byte order, type, SRID
  switch (g.type) {
    case 'Point':
      return n + 16;
    case 'MultiPoint':
      return n + 4 + g.coordinates.length * 21;
    case 'LineString':
      return n + lineSize(g.coordinates);
    case 'MultiLineString':
      n += 4;
      for (const l of g.coordinates) n += 5 + lineSize(l);
      return n;
    case 'Polygon':
      return n + polySize(g.coordinates);
    case 'MultiPolygon':
      n += 4;
      for (const p of g.coordinates) n += 5 + polySize(p);
      return n;
  }
}

function head(v: DataView, o: number, type: number, srid: number | null): number {
  v.setUint8(o, 1);
  if (srid === null) {
    v.setUint32(o + 1, type, true);
    return o + 5;
  }
  v.setUint32(o + 1, (type | EWKB_SRID_FLAG) >>> 0, true);
  v.setUint32(o + 5, srid, true);
  return o + 9;
}

function point(v: DataView, o: number, p: Position): number {
  const x = p[0];
  const y = p[1];
  if (!Number.isFinite(x) || !Number.isFinite(y)) throw new RangeError(`non-finite coordinate ${x} ${y}`);
  v.setFloat64(o, x + 0, true); // -0 as 0, as its decimal text would be
  v.setFloat64(o + 8, y + 0, true);
  return o + 16;
}

function line(v: DataView, o: number, l: Position[]): number {
  v.setUint32(o, l.length, true);
  o += 4;
  for (const p of l) o = point(v, o, p);
  return o;
}

function poly(v: DataView, o: number, p: Position[][]): number {
  v.setUint32(o, p.length, true);
  o += 4;
  for (const r of p) o = line(v, o, r);
  return o;
}

/**
 * Writes the EWKB of `g` (little endian, SRID flag) at `offset` of `v`, which must have
 * `ewkbSize(g)` bytes there; returns the offset after it. It is exactly the geometry the EWKT of
 * `esriToEwkt` parses to: the decimal text round-trips to the same doubles, and -0 is written as
 * 0 as the text would be. A non-finite coordinate is refused (as PostGIS refuses it in EWKT).
 */
export function writeEwkb(g: GeoJsonGeometry, v: DataView, offset: number, srid = 3844): number {
  switch (g.type) {
    case 'Point':
      return point(v, head(v, offset, WKB_TYPE.Point, srid), g.coordinates);
    case 'MultiPoint':
      return multi(v, offset, WKB_TYPE.MultiPoint, srid, g.coordinates, (o, p) => point(v, head(v, o, WKB_TYPE.Point, null), p));
    case 'LineString':
      return line(v, head(v, offset, WKB_TYPE.LineString, srid), g.coordinates);
    case 'MultiLineString':
      return multi(v, offset, WKB_TYPE.MultiLineString, srid, g.coordinates, (o, l) => line(v, head(v, o, WKB_TYPE.LineString, null), l));
    case 'Polygon':
      return poly(v, head(v, offset, WKB_TYPE.Polygon, srid), g.coordinates);
    case 'MultiPolygon':
      return multi(v, offset, WKB_TYPE.MultiPolygon, srid, g.coordinates, (o, p) => poly(v, head(v, o, WKB_TYPE.Polygon, null), p));
  }
}

/** A multi-geometry: its header, the part count, then each part (parts carry no SRID). */
function multi<T>(v: DataView, offset: number, type: number, srid: number, parts: T[], writePart: (o: number, part: T) => number): number {
  let o = head(v, offset, type, srid);
  v.setUint32(o, parts.length, true);
  o += 4;
  for (const part of parts) o = writePart(o, part);
  return o;
}
