/** Small planar geometry helpers in metres (EPSG:3844 or a rotated local frame). */

export type Ring = number[][];
/** Rings of one or more polygons, outer and inner mixed: containment uses the even-odd rule. */
export type RingSet = Ring[];

export interface BBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export function bboxOf(rings: RingSet): BBox {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const ring of rings) {
    for (const [x, y] of ring) {
      if (x < minX) minX = x;
      if (y < minY) minY = y;
      if (x > maxX) maxX = x;
      if (y > maxY) maxY = y;
    }
  }
  return { minX, minY, maxX, maxY };
}

/** Signed shoelace area: negative for clockwise rings (ESRI outer-ring orientation). */
export function signedArea(ring: Ring): number {
  let a = 0;
  for (let i = 0, n = ring.length; i < n - 1; i++) {
    a += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
  }
  return a / 2;
}

export function pointInRings(x: number, y: number, rings: RingSet): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/** Edges as flat [x1, y1, x2, y2] with their bbox first, for fast rectangle tests. */
export type Edge = [number, number, number, number, number, number, number, number];

export function edgesOf(rings: RingSet): Edge[] {
  const edges: Edge[] = [];
  for (const ring of rings) {
    for (let i = 0; i < ring.length - 1; i++) {
      const [x1, y1] = ring[i];
      const [x2, y2] = ring[i + 1];
      edges.push([Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2), x1, y1, x2, y2]);
    }
  }
  return edges;
}

/** Liang–Barsky: does the segment touch the axis-aligned rectangle? */
function segmentHitsRect(e: Edge, r: BBox): boolean {
  const [, , , , x1, y1, x2, y2] = e;
  let t0 = 0;
  let t1 = 1;
  const dx = x2 - x1;
  const dy = y2 - y1;
  const p = [-dx, dx, -dy, dy];
  const q = [x1 - r.minX, r.maxX - x1, y1 - r.minY, r.maxY - y1];
  for (let i = 0; i < 4; i++) {
    if (p[i] === 0) {
      if (q[i] < 0) return false;
    } else {
      const t = q[i] / p[i];
      if (p[i] < 0) {
        if (t > t1) return false;
        if (t > t0) t0 = t;
      } else {
        if (t < t0) return false;
        if (t < t1) t1 = t;
      }
    }
  }
  return true;
}

/** True when the rectangle lies wholly inside the polygon(s): a corner inside, no edge crossing it. */
export function rectInside(r: BBox, rings: RingSet, edges: Edge[]): boolean {
  if (!pointInRings(r.minX, r.minY, rings)) return false;
  for (const e of edges) {
    if (e[2] < r.minX || e[0] > r.maxX || e[3] < r.minY || e[1] > r.maxY) continue;
    if (segmentHitsRect(e, r)) return false;
  }
  return true;
}

export function rectsOverlap(a: BBox, b: BBox, margin = 0): boolean {
  return a.minX < b.maxX + margin && b.minX < a.maxX + margin && a.minY < b.maxY + margin && b.minY < a.maxY + margin;
}

/** A rotation by theta about an origin: local frame (u, v) ↔ world (x, y). */
export class Frame {
  private readonly c: number;
  private readonly s: number;

  constructor(
    readonly ox: number,
    readonly oy: number,
    theta: number,
  ) {
    this.c = Math.cos(theta);
    this.s = Math.sin(theta);
  }

  toWorld(u: number, v: number): [number, number] {
    return [round2(this.ox + u * this.c - v * this.s), round2(this.oy + u * this.s + v * this.c)];
  }

  toLocal(x: number, y: number): [number, number] {
    const dx = x - this.ox;
    const dy = y - this.oy;
    return [dx * this.c + dy * this.s, -dx * this.s + dy * this.c];
  }

  /** A closed, clockwise ESRI ring for a local rectangle. */
  rectRing(r: BBox): Ring {
    const a = this.toWorld(r.minX, r.minY);
    return [a, this.toWorld(r.minX, r.maxY), this.toWorld(r.maxX, r.maxY), this.toWorld(r.maxX, r.minY), [a[0], a[1]]];
  }

  /** A self-intersecting "bow tie" over the same rectangle: the portal's occasional invalid ring. */
  bowTieRing(r: BBox): Ring {
    const a = this.toWorld(r.minX, r.minY);
    return [a, this.toWorld(r.maxX, r.maxY), this.toWorld(r.minX, r.maxY), this.toWorld(r.maxX, r.minY), [a[0], a[1]]];
  }
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Outer rings clockwise, holes counter-clockwise, as ESRI JSON wants. */
export function esriOrient(polygons: Ring[][]): Ring[] {
  const out: Ring[] = [];
  for (const poly of polygons) {
    poly.forEach((ring, i) => {
      const cw = signedArea(ring) < 0;
      const wantCw = i === 0;
      out.push(cw === wantCw ? ring : [...ring].reverse());
    });
  }
  return out;
}
