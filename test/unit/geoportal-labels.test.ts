/**
 * One cadastral-number label per parcel (web/app/lib/geoportal/parcelLabels.ts): the pieces a
 * parcel has in neighbouring tiles give one point, inside the largest piece, inside the parcel
 * even where its centroid is not (an L-shaped parcel).
 */
import { describe, expect, it } from '@jest/globals';
import { innerPoint, parcelLabelPoints, type ParcelPiece } from '../../web/app/lib/geoportal/parcelLabels';

const rect = (x1: number, y1: number, x2: number, y2: number) => [
  [x1, y1],
  [x2, y1],
  [x2, y2],
  [x1, y2],
  [x1, y1],
];

/** Even-odd point-in-ring test, independent of the module under test. */
function inside([x, y]: [number, number], ring: number[][]): boolean {
  let c = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

describe('parcel label points', () => {
  it('labels a parcel cut by a tile edge once, inside its larger piece', () => {
    // The edge at longitude 23.5: 0.003° of the parcel west of it, 0.001° east.
    const west: ParcelPiece = { key: '990301:7', ref: '3017', geometry: { type: 'Polygon', coordinates: [rect(23.497, 46.7, 23.5005, 46.7004)] } };
    const east: ParcelPiece = { key: '990301:7', ref: '3017', geometry: { type: 'Polygon', coordinates: [rect(23.4995, 46.7, 23.501, 46.7004)] } };
    const other: ParcelPiece = { key: '990301:8', ref: '3018', geometry: { type: 'MultiPolygon', coordinates: [[rect(23.51, 46.7, 23.511, 46.701)]] } };
    const fc = parcelLabelPoints([east, west, other]);
    expect(fc.features.map((f) => f.properties)).toEqual([
      { key: '990301:7', cadastral_ref: '3017' },
      { key: '990301:8', cadastral_ref: '3018' },
    ]);
    const [x, y] = fc.features[0].geometry.coordinates;
    expect(x).toBeGreaterThan(23.497);
    expect(x).toBeLessThan(23.5005);
    expect(y).toBeCloseTo(46.7002, 6);
  });

  it('puts the point inside a concave parcel whose centroid lies outside it', () => {
    // An L: the lower bar and the left column; its bounding box centre (0.6, 0.6) is outside.
    const l = [
      [0, 0],
      [1, 0],
      [1, 0.2],
      [0.2, 0.2],
      [0.2, 1],
      [0, 1],
      [0, 0],
    ];
    const p = innerPoint([l])!;
    expect(inside(p, l)).toBe(true);
  });

  it('skips a hole and pieces without a number', () => {
    const outer = rect(0, 0, 3, 1);
    const hole = rect(0.5, 0.2, 2.9, 0.8);
    const p = innerPoint([outer, hole])!;
    expect(inside(p, outer) && !inside(p, hole)).toBe(true);
    expect(parcelLabelPoints([{ key: '1:1', ref: '', geometry: { type: 'Polygon', coordinates: [rect(0, 0, 1, 1)] } }]).features).toEqual([]);
  });
});
