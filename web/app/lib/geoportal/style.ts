/**
 * The map's style, built from what /tiles announces (catalog + PMTiles metadata), so the map
 * never hard-codes a tile URL or layer name beyond the spec's source names. Behaviour of spec 4.1:
 *   - UAT boundaries from gis_uats_z0 / z5 / z8 / z12, each in its own zoom band;
 *   - parcels: transparent-looking fill that still takes clicks, amber without enrichment, green
 *     with (gis_terenuri_status.has_enrichment);
 *   - buildings: red without legal documents, blue with, grey unknown (gis_cladiri_status.build_legal);
 *   - intravilan: a double line (line-gap-width draws two parallel lines) from zoom 13, no fill;
 *   - UAT names: one label per UAT from a GeoJSON point source the page fills (./uatLabels), not
 *     from the tiled polygons, whose per-tile pieces would each get a label;
 *   - cadastral_ref labels from zoom 16: one point per parcel in a GeoJSON source the page fills
 *     from the loaded zoom-16 parcel tiles (./parcelLabels), so a parcel cut by a tile edge is
 *     labelled once;
 *   - selection and highlight by parcel key "<siruta>:<feature id>" (./featureKeys), which the
 *     tiles carry at every zoom;
 *   - the PMTiles overview below the zoom where live parcels start, in a neutral grey: the
 *     archive carries no enrichment state, so it must not use the "not enriched" amber.
 */
import type { ExpressionSpecification, LayerSpecification, SourceSpecification, StyleSpecification, FilterSpecification, SymbolLayerSpecification } from 'maplibre-gl';
import { GLYPHS_URL, LABEL_FONT } from './glyphs';
import { MAP_COLORS } from '../../../../domain/geo/mapColors';

export interface CatalogSource {
  name: string;
  minzoom: number;
  maxzoom: number;
  layer: string;
}

export interface OverviewInfo {
  url: string;
  layers: { id: string; minzoom?: number; maxzoom?: number }[];
}

export const COLORS = MAP_COLORS;

/** Zoom from which intravilan is drawn and cadastral labels appear (spec 4.1). */
export const INTRAVILAN_MINZOOM = 13;
export const LABEL_MINZOOM = 16;
/**
 * Live parcel tiles start here when the overview archive covers the zooms below: the archive
 * holds every parcel through z14, while live tiles below z14 are density-thinned (docs/tiles.md),
 * so zooming in never goes from the full mesh to a sparser one.
 */
export const LIVE_PARCELS_MINZOOM_WITH_OVERVIEW = 14;

export type BasemapId = 'none' | 'osm' | 'ortho';

export const BASEMAPS: { id: BasemapId; label: string; online: boolean }[] = [
  { id: 'none', label: 'Fără hartă de fundal', online: false },
  { id: 'osm', label: 'OpenStreetMap', online: true },
  { id: 'ortho', label: 'Ortofoto', online: true },
];

/** GeoJSON source of the UAT label points (filled by the page, see ./uatLabels). */
export const UAT_LABEL_SOURCE = 'uat-etichete';
/** GeoJSON source of one cadastral-number point per parcel (filled by the page, see ./parcelLabels). */
export const PARCEL_LABEL_SOURCE = 'parcele-etichete';
/** UAT names show from this zoom up to UAT_LABEL_MAXZOOM. */
export const UAT_LABEL_MINZOOM = 9;
export const UAT_LABEL_MAXZOOM = 15;

/** Layer ids the page refers to (clicks, selection, basemap switch). */
export const LAYER = {
  uatNames: 'uat-nume',
  parcelsFill: 'parcele-fill',
  parcelsLine: 'parcele-contur',
  parcelLabels: 'numere-cadastrale',
  overviewParcelsFill: 'overview-parcele-fill',
  buildingsFill: 'cladiri-fill',
  selectionFill: 'selectie-fill',
  selectionLine: 'selectie-contur',
  highlight: 'evidentiere',
  overviewSelectionFill: 'overview-selectie-fill',
  overviewSelectionLine: 'overview-selectie-contur',
  overviewHighlight: 'overview-evidentiere',
};

/** The layers that draw the selection (live tiles from the live zoom, the overview below it). */
export const SELECTION_LAYERS = [LAYER.selectionFill, LAYER.selectionLine, LAYER.overviewSelectionFill, LAYER.overviewSelectionLine];
/** The layers that draw the highlighted parcel. */
export const HIGHLIGHT_LAYERS = [LAYER.highlight, LAYER.overviewHighlight];

const abs = (origin: string, path: string) => `${origin}${path}`;

function vectorSource(origin: string, s: CatalogSource): SourceSpecification {
  // Same origin: the spec's /tiles proxy carries the session cookie, whatever PUBLIC_URL says.
  return { type: 'vector', tiles: [abs(origin, `/tiles/${s.name}/{z}/{x}/{y}`)], minzoom: s.minzoom, maxzoom: Math.min(s.maxzoom, 16) };
}

function uatLayers(sources: Map<string, CatalogSource>): LayerSpecification[] {
  const bands: [string, number, number][] = [
    ['gis_uats_z0', 0, 5],
    ['gis_uats_z5', 5, 8],
    ['gis_uats_z8', 8, 12],
    ['gis_uats_z12', 12, 24],
  ];
  const out: LayerSpecification[] = [];
  for (const [name, minzoom, maxzoom] of bands) {
    const s = sources.get(name);
    if (!s) continue;
    out.push({
      id: `uat-${name}`,
      type: 'line',
      source: name,
      'source-layer': s.layer,
      minzoom,
      maxzoom,
      paint: {
        'line-color': COLORS.uat,
        'line-width': ['interpolate', ['linear'], ['zoom'], 5, 0.6, 10, 1.4, 14, 2.2],
        'line-opacity': 0.85,
      },
    });
  }
  return out;
}

/**
 * A label layer on one of the page's GeoJSON point sources (./uatLabels, ./parcelLabels): one
 * property's text in the label font, its size interpolated between two zooms (`size`: zoom,
 * size, zoom, size), wrapped at 8 ems, on a white halo.
 */
function labelLayer(spec: {
  id: string;
  source: string;
  zoom: { minzoom?: number; maxzoom?: number };
  field: string;
  size: [number, number, number, number];
  layout?: SymbolLayerSpecification['layout'];
  paint: SymbolLayerSpecification['paint'];
}): SymbolLayerSpecification {
  return {
    id: spec.id,
    type: 'symbol',
    source: spec.source,
    ...spec.zoom,
    layout: { 'text-field': ['get', spec.field], 'text-font': LABEL_FONT, 'text-size': ['interpolate', ['linear'], ['zoom'], ...spec.size], 'text-max-width': 8, ...spec.layout },
    paint: { 'text-halo-color': '#ffffff', ...spec.paint },
  };
}

const parcelColor = ['case', ['==', ['get', 'has_enrichment'], 1], COLORS.parcelEnriched, COLORS.parcelPlain] as const;
const buildingColor = [
  'match',
  ['get', 'build_legal'],
  1,
  COLORS.buildingLegal,
  0,
  COLORS.buildingIllegal,
  COLORS.buildingUnknown,
] as const;

export function buildStyle(opts: {
  origin: string;
  catalog: CatalogSource[];
  overview: OverviewInfo | null;
  basemap: BasemapId;
}): StyleSpecification {
  const { origin, catalog, overview } = opts;
  const sources = new Map(catalog.map((s) => [s.name, s]));
  const styleSources: Record<string, SourceSpecification> = {
    osm: {
      type: 'raster',
      tiles: ['https://tile.openstreetmap.org/{z}/{x}/{y}.png'],
      tileSize: 256,
      maxzoom: 19,
      attribution: '© colaboratorii OpenStreetMap',
    },
    ortho: {
      type: 'raster',
      tiles: ['https://server.arcgisonline.com/ArcGIS/rest/services/World_Imagery/MapServer/tile/{z}/{y}/{x}'],
      tileSize: 256,
      maxzoom: 19,
      attribution: 'Ortofoto © Esri, Maxar, Earthstar Geographics',
    },
  };
  for (const s of catalog) styleSources[s.name] = vectorSource(origin, s);
  styleSources[UAT_LABEL_SOURCE] = { type: 'geojson', data: { type: 'FeatureCollection', features: [] } };
  styleSources[PARCEL_LABEL_SOURCE] = { type: 'geojson', data: { type: 'FeatureCollection', features: [] } };
  if (overview) styleSources.overview = { type: 'vector', url: `pmtiles://${overview.url}` };

  const layers: LayerSpecification[] = [
    { id: 'fundal', type: 'background', paint: { 'background-color': COLORS.background } },
    { id: 'basemap-osm', type: 'raster', source: 'osm', layout: { visibility: opts.basemap === 'osm' ? 'visible' : 'none' } },
    { id: 'basemap-ortho', type: 'raster', source: 'ortho', layout: { visibility: opts.basemap === 'ortho' ? 'visible' : 'none' } },
  ];

  const terenuri = sources.get('gis_terenuri_status');
  const liveMin = overview && terenuri ? Math.max(terenuri.minzoom, LIVE_PARCELS_MINZOOM_WITH_OVERVIEW) : (terenuri?.minzoom ?? 10);

  let overviewParcels: string | null = null;
  if (overview) {
    for (const l of overview.layers) {
      const isParcels = /parc|teren/i.test(l.id);
      if (isParcels) {
        overviewParcels = l.id;
        // Overview parcels carry siruta, cadastral_ref and object_id: clickable by (siruta, objectId).
        layers.push({
          id: LAYER.overviewParcelsFill,
          type: 'fill',
          source: 'overview',
          'source-layer': l.id,
          maxzoom: liveMin,
          paint: { 'fill-color': COLORS.parcelOverview, 'fill-opacity': 0.06 },
        });
        layers.push({
          id: `overview-${l.id}`,
          type: 'line',
          source: 'overview',
          'source-layer': l.id,
          maxzoom: liveMin,
          paint: { 'line-color': COLORS.parcelOverview, 'line-width': 0.5, 'line-opacity': 0.7 },
        });
      } else if (!sources.has('gis_uats_z0')) {
        layers.push({
          id: `overview-${l.id}`,
          type: 'line',
          source: 'overview',
          'source-layer': l.id,
          paint: { 'line-color': COLORS.uat, 'line-width': 0.8 },
        });
      }
    }
  }

  if (terenuri) {
    layers.push(
      {
        id: LAYER.parcelsFill,
        type: 'fill',
        source: terenuri.name,
        'source-layer': terenuri.layer,
        minzoom: liveMin,
        // A faint tint: the map under it stays readable, and the fill still takes clicks.
        paint: { 'fill-color': parcelColor as never, 'fill-opacity': ['interpolate', ['linear'], ['zoom'], 13, 0.1, 18, 0.16] },
      },
      {
        id: LAYER.parcelsLine,
        type: 'line',
        source: terenuri.name,
        'source-layer': terenuri.layer,
        minzoom: liveMin,
        paint: { 'line-color': parcelColor as never, 'line-width': ['interpolate', ['linear'], ['zoom'], 13, 0.6, 17, 1.6] },
      },
    );
  }

  const cladiri = sources.get('gis_cladiri_status');
  if (cladiri) {
    const min = Math.max(cladiri.minzoom, 14);
    layers.push(
      {
        id: LAYER.buildingsFill,
        type: 'fill',
        source: cladiri.name,
        'source-layer': cladiri.layer,
        minzoom: min,
        paint: { 'fill-color': buildingColor as never, 'fill-opacity': 0.55 },
      },
      {
        id: 'cladiri-contur',
        type: 'line',
        source: cladiri.name,
        'source-layer': cladiri.layer,
        minzoom: min,
        paint: { 'line-color': buildingColor as never, 'line-width': 1 },
      },
    );
  }

  const admin = sources.get('gis_administrativ');
  if (admin) {
    layers.push({
      id: 'intravilan',
      type: 'line',
      source: admin.name,
      'source-layer': admin.layer,
      minzoom: Math.max(admin.minzoom, INTRAVILAN_MINZOOM),
      filter: ['==', ['get', 'layer_id'], 'LIMITE_INTRAV_DYNAMIC'],
      // line-gap-width: two parallel lines with a gap between them, i.e. a double line, no fill.
      paint: { 'line-color': COLORS.intravilan, 'line-width': 1.3, 'line-gap-width': 3 },
    });
  }

  // UAT boundaries above the parcels, so a boundary stays readable inside dense cadastre.
  layers.push(...uatLayers(sources));
  layers.push(
    labelLayer({
      id: LAYER.uatNames,
      source: UAT_LABEL_SOURCE,
      zoom: { minzoom: UAT_LABEL_MINZOOM, maxzoom: UAT_LABEL_MAXZOOM },
      field: 'name',
      size: [9, 11.5, 12, 14],
      layout: {
        'text-letter-spacing': 0.04,
        'text-padding': 6,
        // Larger UATs win when names collide; no name is ever drawn over another.
        'symbol-sort-key': ['-', ['coalesce', ['get', 'area_value'], 0]],
        'text-allow-overlap': false,
      },
      paint: { 'text-color': '#374151', 'text-halo-width': 1.6, 'text-opacity': ['interpolate', ['linear'], ['zoom'], 13.5, 1, 15, 0.6] },
    }),
  );

  // Selection and highlight: on the live tiles from the zoom live parcels start (no live tile is
  // asked for below it), on the overview's parcels under it, so a selection stays visible when
  // zooming out.
  const none = keyFilter([]);
  const marks = (source: string, sourceLayer: string, ids: { fill: string; line: string; highlight: string }, zoom: { minzoom?: number; maxzoom?: number }): LayerSpecification[] => [
    { id: ids.fill, type: 'fill', source, 'source-layer': sourceLayer, ...zoom, filter: none, paint: { 'fill-color': COLORS.selection, 'fill-opacity': 0.35 } },
    { id: ids.line, type: 'line', source, 'source-layer': sourceLayer, ...zoom, filter: none, paint: { 'line-color': COLORS.selection, 'line-width': 2.5 } },
    { id: ids.highlight, type: 'line', source, 'source-layer': sourceLayer, ...zoom, filter: highlightFilter({}), paint: { 'line-color': COLORS.highlight, 'line-width': 3 } },
  ];
  if (overviewParcels) {
    layers.push(...marks('overview', overviewParcels, { fill: LAYER.overviewSelectionFill, line: LAYER.overviewSelectionLine, highlight: LAYER.overviewHighlight }, { maxzoom: liveMin }));
  }
  if (terenuri) {
    layers.push(
      ...marks(terenuri.name, terenuri.layer, { fill: LAYER.selectionFill, line: LAYER.selectionLine, highlight: LAYER.highlight }, { minzoom: liveMin }),
      // One point per parcel (./parcelLabels), not the tiled polygons: each tile's piece of a
      // parcel would get its own label.
      labelLayer({
        id: LAYER.parcelLabels,
        source: PARCEL_LABEL_SOURCE,
        zoom: { minzoom: LABEL_MINZOOM },
        field: 'cadastral_ref',
        size: [16, 11, 19, 14],
        paint: { 'text-color': '#1f2937', 'text-halo-width': 1.5 },
      }),
    );
  }

  return {
    version: 8,
    glyphs: GLYPHS_URL,
    sources: styleSources,
    layers,
  };
}

/** A parcel's key on the live source, "<siruta>:<feature id>", the same at every zoom (./featureKeys). */
// Live tiles carry object_id as the feature id (and, from z16, as a property too); the overview
// archive only as a property.
const PARCEL_KEY: ExpressionSpecification = ['concat', ['to-string', ['get', 'siruta']], ':', ['to-string', ['coalesce', ['get', 'object_id'], ['id']]]];

/** Parcels whose key is in the list. */
export function keyFilter(keys: string[]): FilterSpecification {
  return ['in', PARCEL_KEY, ['literal', keys]];
}

/**
 * The highlighted parcel: by key (every zoom), or by uuid when only that is known yet (a search
 * result before its feature has loaded; uuids are in the tiles from zoom 16).
 */
export function highlightFilter(h: { key?: string; id?: string }): FilterSpecification {
  return ['any', ['in', PARCEL_KEY, ['literal', h.key ? [h.key] : []]], ['in', ['get', 'id'], ['literal', h.id ? [h.id] : []]]];
}
