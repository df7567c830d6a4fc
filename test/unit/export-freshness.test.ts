import {
  ADMIN_LAYER_FRESHNESS_HOURS,
  EXPORT_FRESHNESS_HOURS,
  NO_GEOMETRY_IMPORT_FRESHNESS_HOURS,
  decideLayerSync,
  decideNoGeometryImport,
  describeDecision,
  planExportSync,
  type LayerCategory,
} from '../../domain/exports/freshness';

const now = new Date('2026-03-10T12:00:00+02:00');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);

type Row = [string, LayerCategory, number | null, boolean, string];

const rows: Row[] = [
  ['a parcel layer never synced is synced', 'terenuri', null, true, 'never'],
  ['a parcel layer synced 2 h ago is skipped', 'terenuri', 2, false, 'fresh'],
  ['a parcel layer synced 167.9 h ago is still fresh', 'terenuri', 167.9, false, 'fresh'],
  ['a parcel layer synced exactly 168 h ago is stale', 'terenuri', 168, true, 'stale'],
  ['a building layer synced 8 days ago is stale', 'cladiri', 192, true, 'stale'],
  ['an administrative layer synced 23 h ago is skipped', 'administrativ', 23, false, 'fresh'],
  ['an administrative layer synced 25 h ago is synced again', 'administrativ', 25, true, 'stale'],
  ['a documentation layer follows the 168 h default', 'documentatii', 100, false, 'fresh'],
];

describe('export freshness (spec 8)', () => {
  test('the spec constants', () => {
    expect([EXPORT_FRESHNESS_HOURS, ADMIN_LAYER_FRESHNESS_HOURS, NO_GEOMETRY_IMPORT_FRESHNESS_HOURS]).toEqual([168, 24, 48]);
  });

  test.each(rows)('%s', (_name, category, age, sync, reason) => {
    const d = decideLayerSync({ layerId: 'L', category, lastSuccessAt: age === null ? null : hoursAgo(age) }, now);
    expect(d.sync).toBe(sync);
    expect(d.reason).toBe(reason);
    expect(d.kind).toBe('layer');
  });

  test('the no-geometry import is skipped within 48 h and run after', () => {
    expect(decideNoGeometryImport(hoursAgo(47), now)).toMatchObject({ sync: false, reason: 'fresh', ageHours: 47 });
    expect(decideNoGeometryImport(hoursAgo(49), now)).toMatchObject({ sync: true, reason: 'stale', maxAgeHours: 48 });
    expect(decideNoGeometryImport(null, now)).toMatchObject({ sync: true, reason: 'never', ageHours: null });
  });

  test('force syncs even fresh layers and says so', () => {
    const d = decideLayerSync({ layerId: 'TERENURI_ACTIVE', category: 'terenuri', lastSuccessAt: hoursAgo(1) }, now, true);
    expect(d).toMatchObject({ sync: true, reason: 'forced' });
  });

  test('a last run in the future (clock skew) counts as fresh', () => {
    const d = decideLayerSync({ layerId: 'X', category: 'terenuri', lastSuccessAt: hoursAgo(-2) }, now);
    expect(d).toMatchObject({ sync: false, reason: 'fresh', ageHours: 0 });
  });

  test('a magic plan lists the layers in order, then the no-geometry import', () => {
    const plan = planExportSync({
      now,
      layers: [
        { layerId: 'TERENURI_ACTIVE', category: 'terenuri', lastSuccessAt: hoursAgo(10) },
        { layerId: 'CLADIRI_ACTIVE', category: 'cladiri', lastSuccessAt: hoursAgo(200) },
        { layerId: 'LIMITE_UAT', category: 'administrativ', lastSuccessAt: hoursAgo(30) },
      ],
      noGeometry: { lastSuccessAt: hoursAgo(12) },
    });
    expect(plan.map((d) => [d.kind, d.layerId, d.sync])).toEqual([
      ['layer', 'TERENURI_ACTIVE', false],
      ['layer', 'CLADIRI_ACTIVE', true],
      ['layer', 'LIMITE_UAT', true],
      ['no-geometry', null, false],
    ]);
  });

  test('a plan without no-geometry records has no import step', () => {
    const plan = planExportSync({ now, layers: [{ layerId: 'TERENURI_ACTIVE', category: 'terenuri', lastSuccessAt: null }] });
    expect(plan).toHaveLength(1);
  });

  test('the decision is described in Romanian with the age and the window', () => {
    const text = describeDecision(decideLayerSync({ layerId: 'CLADIRI_ACTIVE', category: 'cladiri', lastSuccessAt: hoursAgo(5) }, now));
    expect(text).toBe('Stratul „clădiri”: sincronizat acum 5 h (sub 168 h), sincronizarea este omisă.');
    expect(describeDecision(decideNoGeometryImport(null, now))).toContain('fără geometrie');
  });
});
