/**
 * The geoportal map (spec 4.1): MapLibre with the /tiles sources and the PMTiles overview, search
 * that flies to its result, the feature panel, and selection with export. Browser-only: MapLibre
 * and PMTiles load in an effect, so the server render is the frame without the canvas.
 */
import { enableBoxSelect } from '../../lib/geoportal/boxSelect';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { GeoJSONSource, Map as MlMap, MapMouseEvent, MapGeoJSONFeature, VectorTileSource } from 'maplibre-gl';
import { SearchBox } from './SearchBox';
import { FeaturePanel, type PanelState } from './FeaturePanel';
import { BASEMAPS, COLORS, HIGHLIGHT_LAYERS, LABEL_MINZOOM, LAYER, LIVE_PARCELS_MINZOOM_WITH_OVERVIEW, PARCEL_LABEL_SOURCE, SELECTION_LAYERS, UAT_LABEL_MINZOOM, UAT_LABEL_SOURCE, buildStyle, highlightFilter, keyFilter, type BasemapId, type OverviewInfo } from '../../lib/geoportal/style';
import { parcelLabelPoints, type ParcelPiece } from '../../lib/geoportal/parcelLabels';
import { UatCard, type UatCardState } from './UatCard';
import type { UatChoice } from '../sync/uatSearch';
import { detailOf, featureKey, keyString, resolveParcels, type FeatureKey, type ResolvedParcel } from '../../lib/geoportal/featureKeys';
import { labelPointsGeoJson, loadUatLabelPoints } from '../../lib/geoportal/uatLabels';
import { localGlyphs } from '../../lib/geoportal/glyphs';
import { formatViewHash, parseViewHash, type MapView } from '../../lib/geoportal/viewHash';
import { useLocation, useNavigate } from '@remix-run/react';
// MapLibre's tile worker, bundled by Vite as its own self-contained chunk (no CDN).
import maplibreWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url';
import { BUILDING_LAYER, downloadExport, loadCatalog, loadFeature, loadUatBounds, scopeProblem, type Bbox, type FeatureLookup, type SearchResult } from '../../lib/geoportal/api';
import { BUSY_MESSAGE } from '../../lib/api';

/** Parcel key "<siruta>:<object id>" (lib/geoportal/featureKeys) → uuid (for the export) and cadastral ref. */
type Selected = Map<string, ResolvedParcel>;
/** What a click or a box picked: the key of each parcel, and its uuid where the tile carries it (zoom 16+). */
type Pick = { key: FeatureKey; detail: ResolvedParcel | null };
/** The live parcel source, whose zoom-16 tiles resolve picks made below zoom 16. */
type ParcelSource = { name: string; layer: string };

const ZOOM_IN = 'Apropiați harta pentru a selecta parcele.';
/** Tiles refused under load (429) or failed (5xx): said until the user retries, not a hole in the map. */
const TILES_FAILED = 'O parte din hartă nu s-a încărcat din cauza unei erori a serverului.';

const ROMANIA: [number, number, number, number] = [20.2, 43.6, 29.8, 48.3];
/** Romania with a margin: what the UAT label points are read for. */
const ROMANIA_LABELS: [number, number, number, number] = [20.0, 43.5, 30.0, 48.4];
let protocolsAdded = false;

function currentView(map: MlMap, basemap: BasemapId): MapView {
  const c = map.getCenter();
  return { zoom: map.getZoom(), lat: c.lat, lon: c.lng, basemap };
}

/** Basemap switch: only layer visibility changes, so zoom and centre stay (spec 4.1). */
function showBasemap(map: MlMap, id: BasemapId, setBasemap: (id: BasemapId) => void) {
  setBasemap(id);
  map.setLayoutProperty('basemap-osm', 'visibility', id === 'osm' ? 'visible' : 'none');
  map.setLayoutProperty('basemap-ortho', 'visibility', id === 'ortho' ? 'visible' : 'none');
}

/** [[minLon, minLat], [maxLon, maxLat]] of any GeoJSON coordinates array; null when empty. */
function geometryBounds(coords: unknown): [[number, number], [number, number]] | null {
  const b = [Infinity, Infinity, -Infinity, -Infinity];
  const walk = (c: unknown) => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      b[0] = Math.min(b[0], c[0]);
      b[1] = Math.min(b[1], c[1]);
      b[2] = Math.max(b[2], c[0]);
      b[3] = Math.max(b[3], c[1]);
    } else c.forEach(walk);
  };
  walk(coords);
  return Number.isFinite(b[0]) ? [[b[0], b[1]], [b[2], b[3]]] : null;
}

/**
 * `central`: the caller is on the central API path (spec 1.4): search, panel, enrichment and CF
 * orders go through /api/gis and /api/cf; the tiles stay on our store.
 */
export function GeoportalMap({ basicPanel, central = false, basicScope = false }: { basicPanel: boolean; central?: boolean; basicScope?: boolean }) {
  const container = useRef<HTMLDivElement>(null);
  const mapRef = useRef<MlMap | null>(null);
  const [ready, setReady] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const location = useLocation();
  const navigate = useNavigate();
  const [basemap, setBasemap] = useState<BasemapId>('none');
  const basemapRef = useRef(basemap);
  basemapRef.current = basemap;
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;
  const followingUrlRef = useRef(false);
  // The hash as the page opened with it (a shared link), before anything on the page moves it.
  const openingHashRef = useRef(typeof window === 'undefined' ? '' : window.location.hash);
  const [panel, setPanel] = useState<PanelState | null>(null);
  const [selecting, setSelecting] = useState(false);
  const [selected, setSelected] = useState<Selected>(new Map());
  const [toast, setToast] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const [tileTrouble, setTileTrouble] = useState<string | null>(null);
  const [hasOverview, setHasOverview] = useState(false);
  const [uatFilter, setUatFilter] = useState<UatChoice | null>(null);
  const [uatCard, setUatCard] = useState<UatCardState | null>(null);
  // Handlers registered once on the map read the latest state through these refs.
  const selectingRef = useRef(selecting);
  selectingRef.current = selecting;
  const selectedRef = useRef(selected);
  selectedRef.current = selected;

  const say = useCallback((text: string) => {
    setToast(text);
    window.setTimeout(() => setToast((t) => (t === text ? null : t)), 4000);
  }, []);

  const highlight = useCallback((h: { key?: string; id?: string }) => {
    const map = mapRef.current;
    for (const l of HIGHLIGHT_LAYERS) if (map?.getLayer(l)) map.setFilter(l, highlightFilter(h));
  }, []);

  /**
   * By uuid (search results, zoom 16+), by tile key (a click at any zoom, the overview; a
   * building's key names its layer) or, on the central path, by (siruta, cadastral number).
   */
  const openFeature = useCallback(
    (key: FeatureLookup, opts: { fit?: boolean; buildLegal?: number | null; building?: boolean } = {}) => {
      // A central uuid is not the uuid of our tiles: central features highlight by their key; a
      // building's key is not a parcel's. A click on a building says so itself: the basic panel's
      // answer names no layer.
      const building = opts.building ?? (!('id' in key) && key.layerId === BUILDING_LAYER);
      setPanel({ loading: true, building });
      setUatCard(null);
      highlight('id' in key ? (central ? {} : { id: key.id }) : building || !('objectId' in key) ? {} : { key: keyString(key) });
      loadFeature(key, central).then(
        (r) => {
          setPanel({ feature: r.feature, buildLegal: opts.buildLegal, building });
          // Opened from a link: bring the parcel into view.
          const bounds = opts.fit && 'geometry' in r.feature ? geometryBounds(r.feature.geometry?.coordinates) : null;
          if (bounds) mapRef.current?.fitBounds(bounds, { padding: 80, maxZoom: 18, duration: 0 });
          // Known by uuid only until now: the key also highlights it below zoom 16.
          const f = r.feature;
          if (!('objectId' in key) && 'objectId' in f && f.layerId !== BUILDING_LAYER) {
            highlight({ ...('id' in key && !central ? { id: key.id } : {}), key: keyString({ siruta: f.siruta, objectId: f.objectId }) });
            // A central search hit has no bbox: the detail's geometry says where to fly.
            const box = central ? geometryBounds(f.geometry?.coordinates) : null;
            if (box) mapRef.current?.fitBounds(box, { padding: 80, maxZoom: 18, duration: 1200 });
          }
        },
        (err: Error) => setPanel({ error: err.message, signInAgain: scopeProblem(err) }),
      );
    },
    [highlight, central],
  );

  const closePanel = useCallback(() => {
    setPanel(null);
    highlight({});
  }, [highlight]);

  // Picks below zoom 16 carry no uuid: read it from the zoom-16 tiles under them.
  const parcelSourceRef = useRef<ParcelSource | null>(null);
  const resolvePicks = useCallback(
    async (picks: Pick[], bounds: [number, number, number, number]): Promise<Map<string, ResolvedParcel> | null> => {
      const source = parcelSourceRef.current;
      if (picks.length === 0 || !source) return new Map();
      const r = await resolveParcels(
        source,
        picks.map((p) => p.key),
        bounds,
      );
      return r.tooLarge ? null : r.found;
    },
    [],
  );

  const addToSelection = useCallback((parcels: Iterable<[string, ResolvedParcel]>) => {
    setSelected((prev) => {
      const next = new Map(prev);
      for (const [k, v] of parcels) if (!next.has(k)) next.set(k, v);
      return next;
    });
  }, []);

  /** Shift+click or a click in selection mode: removes a selected parcel, adds any other. */
  const toggleSelected = useCallback(
    (pick: Pick, at: [number, number]) => {
      const key = keyString(pick.key);
      if (selectedRef.current.has(key)) {
        setSelected((prev) => {
          const next = new Map(prev);
          next.delete(key);
          return next;
        });
      } else if (pick.detail) {
        addToSelection([[key, pick.detail]]);
      } else {
        resolvePicks([pick], [at[0], at[1], at[0], at[1]]).then(
          (found) => {
            const parcel = found?.get(key);
            if (parcel) addToSelection([[key, parcel]]);
            else say(ZOOM_IN);
          },
          (err: Error) => say(err.message),
        );
      }
    },
    [addToSelection, resolvePicks, say],
  );

  /** Box selection adds (never removes) every parcel under the box. */
  const addSelected = useCallback(
    (picks: Pick[], bounds: [number, number, number, number]) => {
      const fresh = picks.filter((p) => !selectedRef.current.has(keyString(p.key)));
      addToSelection(fresh.flatMap((p) => (p.detail ? [[keyString(p.key), p.detail] as [string, ResolvedParcel]] : [])));
      const missing = fresh.filter((p) => !p.detail);
      if (missing.length === 0) return;
      const busy = 'Se identifică parcelele din dreptunghi…';
      say(busy);
      resolvePicks(missing, bounds).then(
        (found) => {
          setToast((t) => (t === busy ? null : t));
          if (!found) say('Zona este prea mare pentru selecție; apropiați harta sau desenați un dreptunghi mai mic.');
          else if (found.size === 0) say(ZOOM_IN);
          else addToSelection(found);
        },
        (err: Error) => say(err.message),
      );
    },
    [addToSelection, resolvePicks, say],
  );

  // Build the map once.
  useEffect(() => {
    let disposed = false;
    let map: MlMap | undefined;
    (async () => {
      const [maplibregl, pmtiles] = await Promise.all([import('maplibre-gl'), import('pmtiles')]);
      if (!protocolsAdded) {
        maplibregl.setWorkerUrl(maplibreWorkerUrl);
        maplibregl.addProtocol('pmtiles', new pmtiles.Protocol({ metadata: true }).tile);
        maplibregl.addProtocol('localglyphs', localGlyphs);
        protocolsAdded = true;
      }
      const catalog = await loadCatalog();
      const origin = window.location.origin;
      parcelSourceRef.current = catalog.sources.find((s) => s.name === 'gis_terenuri_status') ?? null;
      let overview: OverviewInfo | null = null;
      try {
        // The archive is optional (built by the rebuild job); without it live tiles start lower.
        const archive = new pmtiles.PMTiles(`${origin}/tiles/overview.pmtiles`);
        const meta = (await archive.getMetadata()) as { vector_layers?: { id: string; minzoom?: number; maxzoom?: number }[] };
        if (meta?.vector_layers?.length) overview = { url: `${origin}/tiles/overview.pmtiles`, layers: meta.vector_layers };
      } catch {
        overview = null;
      }
      if (disposed || !container.current) return;
      setHasOverview(overview !== null);
      // The view the URL names when the page opens (a shared link).
      const initialView = parseViewHash(openingHashRef.current || window.location.hash);
      if (initialView) {
        basemapRef.current = initialView.basemap;
        setBasemap(initialView.basemap);
      }
      const m = new maplibregl.Map({
        container: container.current,
        style: buildStyle({ origin, catalog: catalog.sources, overview, basemap: initialView?.basemap ?? 'none' }),
        ...(initialView
          ? { center: [initialView.lon, initialView.lat] as [number, number], zoom: initialView.zoom }
          : { bounds: ROMANIA, fitBoundsOptions: { padding: 20 } }),
        maxZoom: 20,
        attributionControl: { compact: true },
        // Right-click leaves selection mode, so it must not start a rotation; Shift+click and
        // Shift+drag select parcels (lib/geoportal/boxSelect), so Shift must not box-zoom.
        dragRotate: false,
        pitchWithRotate: false,
        boxZoom: false,
      });
      map = m;
      m.touchZoomRotate.disableRotation();
      // A bottom corner stacks each control above the ones before it: the scale in the corner, the
      // zoom buttons over it, so on a phone the selection bar, which stands above the scale and
      // beside the zoom buttons' column, covers neither (geoportal.css).
      m.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-right');
      m.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'bottom-right');
      mapRef.current = m;
      // A handle for the browser console and the end-to-end test (rendered features, camera).
      (window as unknown as { geoportalMap?: MlMap }).geoportalMap = m;

      const clickable = () => [LAYER.parcelsFill, LAYER.overviewParcelsFill].filter((l) => m.getLayer(l));
      const pickOf = (f: MapGeoJSONFeature): Pick | null => {
        const key = featureKey(f);
        return key ? { key, detail: detailOf(f) } : null;
      };
      m.on('click', (e: MapMouseEvent) => {
        const hit = m.queryRenderedFeatures(e.point, { layers: clickable() })[0];
        const pick = hit ? pickOf(hit) : null;
        if (selectingRef.current || e.originalEvent.shiftKey) {
          if (pick) toggleSelected(pick, [e.lngLat.lng, e.lngLat.lat]);
          else if (hit) say(ZOOM_IN);
          return;
        }
        // A building is drawn over its parcel: a click on it opens the building, not the parcel.
        const onBuilding = m.getLayer(LAYER.buildingsFill) ? m.queryRenderedFeatures(e.point, { layers: [LAYER.buildingsFill] })[0] : undefined;
        const buildingPick = onBuilding ? pickOf(onBuilding) : null;
        if (buildingPick) {
          const ref = buildingPick.detail?.ref || undefined;
          const legal = onBuilding?.properties?.build_legal;
          const opts = { buildLegal: legal === 0 || legal === 1 ? legal : null, building: true };
          if (buildingPick.detail && !central) openFeature({ id: buildingPick.detail.id }, opts);
          else openFeature({ ...buildingPick.key, cadastralRef: ref, layerId: BUILDING_LAYER }, opts);
          return;
        }
        if (!hit) return closePanel(); // spec 4.1: a click on empty map closes the panel
        // The uuid from zoom 16, else the key the tiles carry at every zoom (siruta, object id).
        if (pick?.detail) openFeature(central ? { ...pick.key, cadastralRef: pick.detail.ref || undefined } : { id: pick.detail.id });
        else if (pick) openFeature(pick.key);
      });
      enableBoxSelect(m, clickable, (features, box) => {
        const picks = features.map(pickOf).filter((p): p is Pick => p !== null);
        if (picks.length === 0) {
          if (features.length) say(ZOOM_IN);
          return;
        }
        const [a, b] = [m.unproject(box[0]), m.unproject(box[1])];
        addSelected(picks, [Math.min(a.lng, b.lng), Math.min(a.lat, b.lat), Math.max(a.lng, b.lng), Math.max(a.lat, b.lat)]);
      });
      m.on('contextmenu', () => setSelecting(false));
      m.on('mousemove', (e) => {
        const over = m.queryRenderedFeatures(e.point, { layers: [...clickable(), LAYER.buildingsFill].filter((l) => m.getLayer(l)) }).length > 0;
        m.getCanvas().style.cursor = over ? 'pointer' : '';
      });
      // For people and tests alike: how many parcels are on screen once the map settles.
      m.on('idle', () => {
        const n = m.getLayer(LAYER.parcelsFill) ? m.queryRenderedFeatures({ layers: [LAYER.parcelsFill] }).length : 0;
        container.current?.setAttribute('data-rendered-parcels', String(n));
        container.current?.setAttribute('data-zoom', m.getZoom().toFixed(2));
      });
      // One cadastral-number label per parcel (lib/geoportal/parcelLabels), from the loaded
      // zoom-16 tiles, refreshed when tiles arrive or the view settles.
      const parcels = parcelSourceRef.current;
      let labelTimer = 0;
      let labelSignature = '';
      const refreshParcelLabels = () => {
        if (labelTimer) return;
        labelTimer = window.setTimeout(() => {
          labelTimer = 0;
          if (disposed || !parcels) return;
          const target = m.getSource(PARCEL_LABEL_SOURCE) as GeoJSONSource | undefined;
          if (!target) return;
          const pieces: ParcelPiece[] =
            m.getZoom() < LABEL_MINZOOM
              ? []
              : m.querySourceFeatures(parcels.name, { sourceLayer: parcels.layer }).flatMap((f) => {
                  const key = featureKey(f);
                  const ref = f.properties?.cadastral_ref;
                  return key && typeof ref === 'string' && ref ? [{ key: keyString(key), ref, geometry: f.geometry as ParcelPiece['geometry'] }] : [];
                });
          const points = parcelLabelPoints(pieces);
          // Same labels at the same places (a pan within loaded tiles): no new data, no repaint.
          const signature = points.features.map((f) => `${f.properties.key}@${f.geometry.coordinates.join(',')}`).join(';');
          if (signature === labelSignature) return;
          labelSignature = signature;
          target.setData(points);
        }, 120);
      };
      m.on('sourcedata', (e) => {
        if (parcels && e.sourceId === parcels.name && e.isSourceLoaded) refreshParcelLabels();
      });
      m.on('moveend', refreshParcelLabels);
      // One name per UAT (lib/geoportal/uatLabels): read once, when names are about to show.
      let labels: 'none' | 'loading' | 'done' = 'none';
      const loadLabels = () => {
        if (labels !== 'none' || m.getZoom() < UAT_LABEL_MINZOOM - 1) return;
        labels = 'loading';
        loadUatLabelPoints(catalog.sources, ROMANIA_LABELS).then(
          (points) => {
            labels = 'done';
            if (!disposed) (m.getSource(UAT_LABEL_SOURCE) as GeoJSONSource | undefined)?.setData(labelPointsGeoJson(points));
          },
          () => {
            labels = 'none'; // tried again on the next move
          },
        );
      };
      m.on('moveend', loadLabels);
      // Each settled view is a history entry (`#zoom/lat/lon`), so links share it and Back walks it;
      // a hash-only navigation runs no loader.
      m.on('moveend', () => writeView(m));
      m.once('load', () => {
        if (disposed) return;
        setReady(true);
        loadLabels();
      });
      m.on('error', (e) => {
        // Tiles of an online basemap fail without internet: not worth a message each time.
        const src = (e as { sourceId?: string }).sourceId;
        if (src === 'osm' || src === 'ortho') return;
        // Our tiles refused or failed: say so, with a retry, instead of leaving holes in the map.
        const status = (e.error as { status?: number } | undefined)?.status ?? 0;
        if (status === 429) setTileTrouble(`O parte din hartă nu s-a încărcat. ${BUSY_MESSAGE}`);
        else if (status >= 500) setTileTrouble(TILES_FAILED);
        else console.warn('map error', e.error?.message);
      });
    })().catch((err: Error) => !disposed && setLoadError(err.message || 'Harta nu a putut fi încărcată.'));
    return () => {
      disposed = true;
      map?.remove();
      mapRef.current = null;
    };
  }, [addSelected, closePanel, openFeature, say, toggleSelected]);

  // Back/Forward (or an edited hash): the map follows the URL.
  useEffect(() => {
    const map = mapRef.current;
    const view = parseViewHash(location.hash);
    if (!ready || !map || !view) return;
    if (formatViewHash(currentView(map, basemapRef.current)) === formatViewHash(view)) return;
    // Following the URL must not write it again (a push here would cut the forward history).
    followingUrlRef.current = true;
    try {
      if (view.basemap !== basemapRef.current) {
        basemapRef.current = view.basemap;
        showBasemap(map, view.basemap, setBasemap);
      }
      map.jumpTo({ center: [view.lon, view.lat], zoom: view.zoom });
    } finally {
      followingUrlRef.current = false;
    }
  }, [location.hash, ready]);
  // A notification's link (`?feature=<uuid>`) opens that parcel's panel once the map is up.
  useEffect(() => {
    if (!ready) return;
    const params = new URLSearchParams(window.location.search);
    const id = params.get('feature');
    if (id && /^[0-9a-f-]{36}$/i.test(id)) openFeature({ id }, { fit: true });
    // A followed UAT's link (`?siruta=`): the map shows that UAT, with its card.
    const siruta = Number(params.get('siruta'));
    if (!id && Number.isInteger(siruta) && siruta > 0) {
      loadUatBounds(siruta).then(
        (b) => {
          if (b) {
            mapRef.current?.fitBounds([[b.bbox[0], b.bbox[1]], [b.bbox[2], b.bbox[3]]], { padding: 40, duration: 0 });
            setUatCard({ siruta, name: b.name ?? `UAT ${siruta}`, county: b.county ?? null, synced: b.synced, bboxOf: 'uat' });
          } else setUatCard({ siruta, name: `UAT ${siruta}`, county: null, synced: false, bboxOf: 'none' });
        },
        (err: Error) => say(err.message),
      );
    }
  }, [ready, openFeature, say]);

  // Selection drawn on the map.
  useEffect(() => {
    const map = mapRef.current;
    if (!ready || !map) return;
    const keys = [...selected.keys()];
    for (const l of SELECTION_LAYERS) if (map.getLayer(l)) map.setFilter(l, keyFilter(keys));
  }, [selected, ready]);

  // A phone has neither Esc nor a right click: its hint names the toggle. Read after hydration,
  // the server knows no pointer.
  const [touch, setTouch] = useState(false);
  useEffect(() => setTouch(window.matchMedia('(pointer: coarse)').matches), []);

  // ESC leaves selection mode (spec 4.1).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setSelecting(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const switchBasemap = (id: BasemapId) => {
    const map = mapRef.current;
    if (!map) return setBasemap(id);
    showBasemap(map, id, setBasemap);
    basemapRef.current = id;
    writeView(map);
  };

  /** Pushes the map's view into the URL unless the URL already names it. */
  function writeView(map: MlMap) {
    if (followingUrlRef.current) return;
    const hash = formatViewHash(currentView(map, basemapRef.current));
    // Path and query stay (a `?feature=` link still opens its parcel on reload); only the hash moves.
    const { pathname, search } = window.location;
    if (hash !== window.location.hash) navigateRef.current({ pathname, search, hash }, { preventScrollReset: true });
  }

  const fitBox = (bbox: Bbox, maxZoom: number) =>
    mapRef.current?.fitBounds(
      [
        [bbox[0], bbox[1]],
        [bbox[2], bbox[3]],
      ],
      { padding: 80, maxZoom, duration: 1200 },
    );

  /**
   * Shows a UAT: flies to its box (the boundary, else its parcels; a hit may bring it, else it is
   * asked) and opens its card (follow, narrow the search, the hint to sync an empty UAT).
   */
  const showUat = useCallback(
    (u: { siruta: number; name: string; county: string | null; bbox?: Bbox; bboxOf?: UatCardState['bboxOf']; synced?: boolean }) => {
      setPanel(null);
      highlight({});
      setUatCard({ siruta: u.siruta, name: u.name, county: u.county, synced: u.synced, bboxOf: u.bboxOf });
      if (u.bbox && u.bboxOf !== 'county') {
        fitBox(u.bbox, 14);
        return;
      }
      // No boundary known with the hit (or only its county's): ask the store for the UAT's own box.
      loadUatBounds(u.siruta).then(
        (b) => {
          if (b) {
            fitBox(b.bbox, 14);
            setUatCard((c) => (c?.siruta === u.siruta ? { ...c, synced: b.synced, bboxOf: 'uat' } : c));
          } else if (u.bbox) {
            fitBox(u.bbox, 10);
          } else {
            setUatCard((c) => (c?.siruta === u.siruta ? { ...c, bboxOf: 'none' } : c));
          }
        },
        (err: Error) => say(err.message),
      );
    },
    [highlight, say],
  );

  const flyTo = (r: SearchResult) => {
    if (r.kind === 'uat') return showUat({ siruta: r.siruta, name: r.uatName ?? r.label, county: r.county, bbox: r.bbox, bboxOf: r.bboxOf, synced: r.synced });
    if (r.bbox) fitBox(r.bbox, 18);
    else if (!central) {
      // A parcel without geometry (imported from the land book only): its UAT is where it is.
      say('Parcela nu are geometrie pe hartă; harta arată UAT-ul ei.');
      loadUatBounds(r.siruta).then((b) => b && fitBox(b.bbox, 14), () => undefined);
    }
    if (!r.featureId) return;
    // On the central path an owner hit is a parcel of the local store: the central API knows it
    // by (siruta, cadastral number), not by our uuid.
    if (central && r.kind === 'owner') {
      if (r.cadastralRef) openFeature({ siruta: r.siruta, cadastralRef: r.cadastralRef });
    } else openFeature({ id: r.featureId });
  };

  /** Tiles failed under load: ask our vector sources again (the hash and the view stay). */
  const retryTiles = () => {
    const map = mapRef.current;
    setTileTrouble(null);
    if (!map) return;
    for (const [id, src] of Object.entries(map.getStyle().sources)) {
      if (src.type !== 'vector' || !('tiles' in src) || !src.tiles) continue;
      (map.getSource(id) as VectorTileSource | undefined)?.setTiles(src.tiles);
    }
  };

  const runExport = async (format: 'geojson' | 'dxf' | 'gpkg') => {
    setExporting(true);
    try {
      const name = await downloadExport(format, [...selected.values()].map((p) => p.id));
      say(`Fișierul ${name} a fost descărcat.`);
    } catch (err) {
      say((err as Error).message);
    } finally {
      setExporting(false);
    }
  };

  return (
    <div className={selecting ? 'geoportal is-selecting' : 'geoportal'} data-testid="geoportal">
      <div ref={container} className="geoportal__map" data-testid="geoportal-map" data-ready={ready ? '1' : '0'} />

      {/* One column on a phone (geoportal.css), so the tools never lie over the search box. */}
      <div className="gp-controls">
        <div className="gp-toolbar">
          <SearchBox onPick={flyTo} central={central} uat={uatFilter} onUat={setUatFilter} />
        </div>

        <div className="gp-tools">
          <label className="gp-select">
            <span className="gp-select__label">Fundal</span>
            <select value={basemap} onChange={(e) => switchBasemap(e.target.value as BasemapId)} data-testid="basemap-select">
              {BASEMAPS.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.label}
                  {b.online ? ' (internet)' : ''}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className={selecting ? 'gp-btn gp-btn--on' : 'gp-btn'}
            aria-pressed={selecting}
            data-testid="selection-toggle"
            onClick={() => setSelecting((s) => !s)}
            title="Selecție: clic pe parcele (sau Shift+clic oricând); Esc sau clic dreapta pentru ieșire"
          >
            {selecting ? 'Selecție activă' : 'Selectează parcele'}
          </button>
        </div>
      </div>

      {panel ? (
        <FeaturePanel state={panel} onClose={closePanel} central={central} basicScope={basicScope} onFeature={(feature) => setPanel({ feature })} />
      ) : null}

      {uatCard && !panel ? (
        <UatCard
          state={uatCard}
          central={central}
          filtered={uatFilter?.siruta === uatCard.siruta}
          onFilter={() => setUatFilter({ siruta: uatCard.siruta, name: uatCard.name, county: uatCard.county })}
          onClose={() => setUatCard(null)}
        />
      ) : null}

      {panel || uatCard ? null : <Legend overview={hasOverview} />}

      {selected.size > 0 || selecting ? (
        <div className="gp-selection" data-testid="selection-bar">
          <span className="gp-selection__count" data-testid="selection-count">
            {selected.size === 1 ? '1 parcelă selectată' : `${selected.size} parcele selectate`}
          </span>
          {selecting ? (
            <span className="gp-muted" data-testid="selection-hint">
              {touch ? 'Atingeți parcelele; „Selecție activă”: ieșire' : 'Esc sau clic dreapta: ieșire din selecție'}
            </span>
          ) : null}
          <span className="gp-selection__actions">
            {(['geojson', 'dxf', 'gpkg'] as const).map((f) => (
              <button
                key={f}
                type="button"
                className="gp-btn gp-btn--small"
                disabled={selected.size === 0 || exporting}
                data-testid={`export-${f}`}
                onClick={() => runExport(f)}
              >
                {f === 'geojson' ? 'GeoJSON' : f.toUpperCase()}
              </button>
            ))}
            <button type="button" className="gp-btn gp-btn--small gp-btn--quiet" disabled={selected.size === 0} onClick={() => setSelected(new Map())}>
              Golește
            </button>
          </span>
        </div>
      ) : null}

      {basicPanel ? <p className="gp-badge">Acces restrâns la datele parcelelor</p> : null}
      {toast ? (
        <p className="gp-toast" role="status">
          {toast}
        </p>
      ) : null}
      {loadError ? <p className="gp-toast gp-toast--fail">{loadError}</p> : null}
      {tileTrouble ? (
        <div className="gp-alert" role="alert" data-testid="tiles-error">
          <span>{tileTrouble}</span>
          <button type="button" className="gp-btn gp-btn--small" data-testid="tiles-retry" onClick={retryTiles}>
            Reîncearcă
          </button>
        </div>
      ) : null}
    </div>
  );
}

/**
 * With the overview archive, parcels below zoom 14 come from it and carry no enrichment state:
 * they are grey, and the legend says from which zoom the state shows.
 */
function Legend({ overview }: { overview: boolean }) {
  const from = overview ? ` (de la zoom ${LIVE_PARCELS_MINZOOM_WITH_OVERVIEW})` : '';
  const items: [string, string, 'fill' | 'line' | 'double'][] = [
    ...(overview ? [[COLORS.parcelOverview, `Parcelă, stare necunoscută sub zoom ${LIVE_PARCELS_MINZOOM_WITH_OVERVIEW}`, 'fill'] as [string, string, 'fill']] : []),
    [COLORS.parcelPlain, `Parcelă fără date îmbogățite${from}`, 'fill'],
    [COLORS.parcelEnriched, `Parcelă cu date îmbogățite${from}`, 'fill'],
    [COLORS.buildingLegal, 'Clădire cu acte', 'fill'],
    [COLORS.buildingIllegal, 'Clădire fără acte', 'fill'],
    [COLORS.buildingUnknown, 'Clădire, situație necunoscută', 'fill'],
    [COLORS.intravilan, 'Limită intravilan', 'double'],
    [COLORS.uat, 'Limită UAT', 'line'],
  ];
  return (
    <details className="gp-legend" open>
      <summary>Legendă</summary>
      <ul>
        {items.map(([color, label, kind]) => (
          <li key={label}>
            <span className={`gp-swatch gp-swatch--${kind}`} style={{ color }} />
            {label}
          </li>
        ))}
      </ul>
    </details>
  );
}
