/**
 * The map style's zoom hand-over between the PMTiles overview and live parcel tiles
 * (docs/geoportal.md): with an overview, live parcels (and the selection and highlight drawn on
 * them) start at LIVE_PARCELS_MINZOOM_WITH_OVERVIEW and the overview's layers stop there, so the
 * full parcel mesh never turns into the thinned live tiles, no live parcel tile is asked for
 * below that zoom, and a selection stays drawn at every zoom.
 */
import { describe, expect, it } from '@jest/globals';
import { featureFilter } from '@maplibre/maplibre-gl-style-spec';
import { COLORS, HIGHLIGHT_LAYERS, LABEL_MINZOOM, LAYER, LIVE_PARCELS_MINZOOM_WITH_OVERVIEW, PARCEL_LABEL_SOURCE, SELECTION_LAYERS, buildStyle, keyFilter } from '../../web/app/lib/geoportal/style';

const catalog = [
  { name: 'gis_terenuri_status', layer: 'gis_terenuri_status', minzoom: 10, maxzoom: 22 },
  { name: 'gis_cladiri_status', layer: 'gis_cladiri_status', minzoom: 10, maxzoom: 22 },
  { name: 'gis_uats_z12', layer: 'gis_uats_z12', minzoom: 12, maxzoom: 22 },
];
const overview = { url: 'https://geo.example.ro/tiles/overview.pmtiles', layers: [{ id: 'uats' }, { id: 'parcels' }] };
const style = (withOverview: boolean) => buildStyle({ origin: 'https://geo.example.ro', catalog, overview: withOverview ? overview : null, basemap: 'none' });
const layer = (s: ReturnType<typeof style>, id: string) => s.layers.find((l) => l.id === id) as { minzoom?: number; maxzoom?: number; source?: string } | undefined;

describe('map style: overview and live parcels', () => {
  it('with an overview, every layer on the live parcel source starts where the overview stops', () => {
    const s = style(true);
    const live = s.layers.filter((l) => 'source' in l && l.source === 'gis_terenuri_status') as Array<{ id: string; minzoom?: number }>;
    expect(live.length).toBeGreaterThanOrEqual(5);
    for (const l of live) expect({ id: l.id, from: (l.minzoom ?? 0) >= LIVE_PARCELS_MINZOOM_WITH_OVERVIEW }).toEqual({ id: l.id, from: true });
    for (const id of [LAYER.overviewParcelsFill, LAYER.overviewSelectionFill, LAYER.overviewSelectionLine, LAYER.overviewHighlight]) {
      expect(layer(s, id)).toMatchObject({ source: 'overview', maxzoom: LIVE_PARCELS_MINZOOM_WITH_OVERVIEW });
    }
  });

  it('the selection and highlight are drawn on both sources, live above the overview', () => {
    const s = style(true);
    for (const id of [...SELECTION_LAYERS, ...HIGHLIGHT_LAYERS]) expect(layer(s, id)).toBeDefined();
    const ids = s.layers.map((l) => l.id);
    expect(ids.indexOf(LAYER.overviewParcelsFill)).toBeLessThan(ids.indexOf(LAYER.overviewSelectionFill));
  });

  it('without an overview, live parcels start at their source minzoom and no overview layer exists', () => {
    const s = style(false);
    expect(layer(s, LAYER.parcelsFill)).toMatchObject({ minzoom: 10 });
    expect(layer(s, LAYER.selectionFill)).toMatchObject({ minzoom: 10 });
    expect(s.layers.filter((l) => l.id.startsWith('overview'))).toEqual([]);
  });

  it('a selection filter matches the parcel key whether object_id is a property (overview) or the feature id (live)', () => {
    const f = featureFilter(keyFilter(['54975:12', '54975:40']), 'layers[0].filter').filter;
    const at = { zoom: 14 };
    const feature = (id: number | undefined, properties: Record<string, unknown>) => ({ type: 3 as const, id, properties, geometry: [] });
    expect(f(at, feature(12, { siruta: 54975 }))).toBe(true); // live tile below z16
    expect(f(at, feature(40, { siruta: 54975, object_id: 40 }))).toBe(true); // live tile from z16
    expect(f(at, feature(undefined, { siruta: 54975, object_id: 12 }))).toBe(true); // overview
    expect(f(at, feature(13, { siruta: 54975 }))).toBe(false);
    expect(f(at, feature(12, { siruta: 54976 }))).toBe(false); // same object_id, another UAT
  });

  // Issue 30: at z12 an entirely enriched UAT was drawn amber ("fără date îmbogățite"): the
  // overview archive carries no enrichment state, so its parcels must not wear that colour.
  it('draws the overview parcels in a neutral colour, never the "not enriched" amber', () => {
    const s = style(true);
    const overviewParcels = s.layers.filter((l) => 'source' in l && l.source === 'overview' && l.id.includes('parc')) as Array<{ id: string; paint?: Record<string, unknown> }>;
    const colours = overviewParcels.flatMap((l) => [l.paint?.['fill-color'], l.paint?.['line-color']]).filter((c) => typeof c === 'string');
    expect(colours.length).toBeGreaterThanOrEqual(2);
    expect(colours).not.toContain(COLORS.parcelPlain);
    expect(colours).not.toContain(COLORS.parcelEnriched);
  });

  // Issue 30: a parcel crossing a tile edge was labelled once per tile piece.
  it('reads cadastral numbers from the one-point-per-parcel source, not from the tiled polygons', () => {
    for (const withOverview of [true, false]) {
      const s = style(withOverview);
      expect(layer(s, LAYER.parcelLabels)).toMatchObject({ source: PARCEL_LABEL_SOURCE, minzoom: LABEL_MINZOOM });
      expect(s.sources[PARCEL_LABEL_SOURCE]).toMatchObject({ type: 'geojson' });
      const symbolsOnTiles = s.layers.filter((l) => l.type === 'symbol' && 'source' in l && l.source === 'gis_terenuri_status');
      expect(symbolsOnTiles).toEqual([]);
    }
  });
});
