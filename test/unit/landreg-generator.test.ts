import { describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { generateUat, uatTarget } from '../../simulators/landreg/generator';
import { pointInRings, type Ring } from '../../simulators/landreg/geometry';
import { Nomenclature } from '../../simulators/landreg/nomenclature';

const nom = new Nomenclature(config.landreg.simDataDir);
const ring = (flat: Float64Array): Ring => Array.from({ length: flat.length / 2 }, (_, i) => [flat[i * 2], flat[i * 2 + 1]]);
/** Bow-tie rings (the portal's invalid geometries) have near-zero shoelace area. */
const isSimpleRect = (r: Ring) =>
  Math.abs(r.slice(0, -1).reduce((s, p, i, a) => s + (p[0] * a[(i + 1) % a.length][1] - a[(i + 1) % a.length][0] * p[1]), 0)) > 1;
const centroid = (r: Ring) => {
  const pts = r.slice(0, -1);
  return [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];
};

describe.each([63394, 63580])('generated cadastre of UAT %i', (siruta) => {
  const uat = nom.uat(siruta)!;
  const data = generateUat(nom, uat, { seed: 42, target: uatTarget(uat) });
  const parcels = data.layers.get('TERENURI_ACTIVE')!.features;
  const rings = parcels.filter((f) => f.parts).map((f) => ({ id: f.objectId, pk: f.attributes.IMMOVABLE_ID, r: ring(f.parts![0]) }));

  test('every parcel vertex lies inside the real UAT boundary', () => {
    const boundary = nom.projected(uat).rings;
    for (const { r } of rings) for (const [x, y] of r) expect(pointInRings(x, y, boundary)).toBe(true);
  });

  test('no two parcels overlap: each parcel centre lies in exactly one parcel', () => {
    const boxes = rings.map(({ r }) => {
      const xs = r.map((p) => p[0]);
      const ys = r.map((p) => p[1]);
      return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    });
    for (const { r } of rings.filter((p) => isSimpleRect(p.r))) {
      const [cx, cy] = centroid(r);
      let hits = 0;
      rings.forEach((o, j) => {
        const b = boxes[j];
        if (cx >= b[0] && cx <= b[2] && cy >= b[1] && cy <= b[3] && pointInRings(cx, cy, [o.r])) hits++;
      });
      expect(hits).toBe(1);
    }
  });

  test('buildings lie inside the parcel of their immovable', () => {
    const buildings = data.layers.get('CLADIRI_ACTIVE')!.features;
    expect(buildings.length).toBeGreaterThan(0);
    let checked = 0;
    for (const b of buildings) {
      const [cx, cy] = centroid(ring(b.parts![0]));
      const host = parcels.find((p) => p.attributes.IMMOVABLE_ID === b.attributes.IMMOVABLE_ID)!;
      if (!host.parts) continue;
      const hostRing = ring(host.parts[0]);
      if (!isSimpleRect(hostRing)) continue; // a bow tie's even-odd interior is not the plot
      expect(pointInRings(cx, cy, [hostRing])).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(buildings.length * 0.9);
  });

  test('5-15% of immovables have no geometry and the repeated cadastral number is present', () => {
    const noGeom = data.immovables.filter((i) => i.objectId === null).length;
    expect(noGeom / data.immovables.length).toBeGreaterThanOrEqual(0.04);
    expect(noGeom / data.immovables.length).toBeLessThanOrEqual(0.14);
    expect(parcels.some((p) => p.attributes.NATIONAL_CADASTRAL_REFERENCE === '1000')).toBe(true);
  });
});
