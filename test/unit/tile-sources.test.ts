/**
 * The tile sources are data (docs/tiles.md "Sources"): which sources a write makes stale is read
 * from each record's `staleAfter`, so a sync, an enrichment or a UAT catalogue change bumps
 * exactly the sources whose tiles show what it changed.
 */
import { TILE_SOURCES, tileSource, tileSourcesChangedBy } from '../../domain/tiles/sources';

const UATS = ['gis_uats_z0', 'gis_uats_z5', 'gis_uats_z8', 'gis_uats_z12'];
const sorted = (xs: readonly string[]) => [...xs].sort();

describe('staleness after a write, from the source records', () => {
  test('a parcel sync makes the parcel views, the feature view and the building status stale', () => {
    expect(sorted(tileSourcesChangedBy({ kind: 'layer', layerId: 'TERENURI_ACTIVE' }))).toEqual(
      sorted(['gis_features', 'gis_terenuri', 'gis_terenuri_status', 'gis_cladiri_status']),
    );
  });

  test('a building sync makes the building views and the feature view stale', () => {
    expect(sorted(tileSourcesChangedBy({ kind: 'layer', layerId: 'CLADIRI_ACTIVE' }))).toEqual(sorted(['gis_features', 'gis_cladiri', 'gis_cladiri_status']));
  });

  test('a sync of another catalogue layer makes the feature, administrative and documentation views stale', () => {
    expect(sorted(tileSourcesChangedBy({ kind: 'layer', layerId: 'INTRAVILAN' }))).toEqual(sorted(['gis_features', 'gis_administrativ', 'gis_documentatii']));
  });

  test('UAT boundaries and the UAT catalogue touch only the UAT sources', () => {
    expect(sorted(tileSourcesChangedBy({ kind: 'layer', layerId: 'LIMITE_UAT' }))).toEqual(sorted(UATS));
    expect(sorted(tileSourcesChangedBy({ kind: 'uats' }))).toEqual(sorted(UATS));
  });

  test('enrichment touches only the status sources', () => {
    expect(sorted(tileSourcesChangedBy({ kind: 'enrichment' }))).toEqual(sorted(['gis_terenuri_status', 'gis_cladiri_status']));
  });

  test('every record reads its own view in schema tiles and names at least one write', () => {
    for (const s of TILE_SOURCES) {
      expect(s.relation).toBe(`tiles.${s.name}`);
      expect(tileSource(s.name)).toBe(s);
      expect(Object.values(s.staleAfter).some((v) => v === true || (Array.isArray(v) && v.length > 0))).toBe(true);
    }
  });
});
