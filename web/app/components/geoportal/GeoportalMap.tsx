/**
 * The geoportal map (spec 4.1): MapLibre with the /tiles sources and the PMTiles overview, search
 * that flies to its result, the feature panel, and selection with export. Browser-only: MapLibre
 * and PMTiles load in an effect, so the server render is the frame without the canvas.
 */
import { enableBoxSelect } from '../../lib/geoportal/boxSelect';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { GeoJSONSource, Map as MlMap, MapMouseEvent, MapGeoJSONFeature } from 'maplibre-gl';
import { SearchBox } from './SearchBox';
import { FeaturePanel, type PanelState } from './FeaturePanel';
import { BASEMAPS, COLORS, HIGHLIGHT_LAYERS, LAYER, SELECTION_LAYERS, UAT_LABEL_MINZOOM, UAT_LABEL_SOURCE, buildStyle, highlightFilter, keyFilter, type BasemapId, type OverviewInfo } from '../../lib/geoportal/style';
import { detailOf, featureKey, keyString, resolveParcels, type FeatureKey, type ResolvedParcel } from '../../lib/geoportal/featureKeys';
import { labelPointsGeoJson, loadUatLabelPoints } from '../../lib/geoportal/uatLabels';
import { localGlyphs } from '../../lib/geoportal/glyphs';
import { formatViewHash, parseViewHash, type MapView } from '../../lib/geoportal/viewHash';
import { useLocation, useNavigate } from '@remix-run/react';
// MapLibre's tile worker, bundled by Vite as its own self-contained chunk (no CDN).
import maplibreWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url';
import { BUSY_MESSAGE, downloadExport, loadCatalog, loadFeature, scopeProblem, type FeatureLookup, type SearchResult } from '../../lib/geoportal/api';

/** Parcel key "<siruta>:<object id>" (lib/geoportal/featureKeys) → uuid (for the export) and cadastral ref. */
type Selected = Map<string, ResolvedParcel>;
/** What a click or a box picked: the key of each parcel, and its uuid where the tile carries it (zoom 16+). */
type Pick = { key: FeatureKey; detail: ResolvedParcel | null };
/** The live parcel source, whose zoom-16 tiles resolve picks made below zoom 16. */
type ParcelSource = { name: string; layer: string };

const ZOOM_IN = 'Apropiați harta pentru a selecta parcele.';

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

  /** By uuid (search results, zoom 16+) or by parcel key (a click at any zoom, the overview). */
  const openFeature = useCallback(
    (key: FeatureLookup, opts: { fit?: boolean } = {}) => {
      setPanel({ loading: true });
      // A central uuid is not the uuid of our tiles: central features highlight by their key.
      highlight('id' in key ? (central ? {} : { id: key.id }) : { key: keyString(key) });
      loadFeature(key, central).then(
        (r) => {
          setPanel({ feature: r.feature });
          // Opened from a link: bring the parcel into view.
          const bounds = opts.fit && 'geometry' in r.feature ? geometryBounds(r.feature.geometry?.coordinates) : null;
          if (bounds) mapRef.current?.fitBounds(bounds, { padding: 80, maxZoom: 18, duration: 0 });
          // Known by uuid only until now: the key also highlights it below zoom 16.
          const f = r.feature;
          if ('id' in key && 'objectId' in f) {
            highlight({ ...(central ? {} : { id: key.id }), key: keyString({ siruta: f.siruta, objectId: f.objectId }) });
            // A central search hit has no bbox: the detail's geometry says where to fly.
            const ring = central ? (f.geometry as { coordinates?: number[][][] } | null)?.coordinates?.[0] : undefined;
            if (ring?.length) {
              const xs = ring.map((p) => p[0]);
              const ys = ring.map((p) => p[1]);
              mapRef.current?.fitBounds([[Math.min(...xs), Math.min(...ys)], [Math.max(...xs), Math.max(...ys)]], { padding: 80, maxZoom: 18, duration: 1200 });
            }
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
        window.location.origin,
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
      m.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'bottom-right');
      m.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-right');
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
        const over = m.queryRenderedFeatures(e.point, { layers: clickable() }).length > 0;
        m.getCanvas().style.cursor = over ? 'pointer' : '';
      });
      // For people and tests alike: how many parcels are on screen once the map settles.
      m.on('idle', () => {
        const n = m.getLayer(LAYER.parcelsFill) ? m.queryRenderedFeatures({ layers: [LAYER.parcelsFill] }).length : 0;
        container.current?.setAttribute('data-rendered-parcels', String(n));
        container.current?.setAttribute('data-zoom', m.getZoom().toFixed(2));
      });
      // One name per UAT (lib/geoportal/uatLabels): read once, when names are about to show.
      let labels: 'none' | 'loading' | 'done' = 'none';
      const loadLabels = () => {
        if (labels !== 'none' || m.getZoom() < UAT_LABEL_MINZOOM - 1) return;
        labels = 'loading';
        loadUatLabelPoints(origin, catalog.sources, ROMANIA_LABELS).then(
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
        console.warn('map error', e.error?.message);
        // Our tiles refused or failed: say so instead of leaving holes in the map.
        const status = (e.error as { status?: number } | undefined)?.status ?? 0;
        if (status === 429) say(BUSY_MESSAGE);
        else if (status >= 500) say('Unele tile-uri ale hărții nu s-au încărcat; mutați harta pentru a reîncerca.');
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
    // A followed UAT's link (`?siruta=`): the map shows that UAT.
    const siruta = Number(params.get('siruta'));
    if (!id && Number.isInteger(siruta) && siruta > 0) {
      fetch(`/api/geoportal/uat-bounds?siruta=${siruta}`)
        .then((r) => (r.ok ? (r.json() as Promise<{ bbox: [number, number, number, number] }>) : null))
        .then((b) => {
          if (b) mapRef.current?.fitBounds([[b.bbox[0], b.bbox[1]], [b.bbox[2], b.bbox[3]]], { padding: 40, duration: 0 });
        }, () => undefined);
    }
  }, [ready, openFeature]);

  // Selection drawn on the map.
  useEffect(() => {
    const map = mapRef.current;
    if (!ready || !map) return;
    const keys = [...selected.keys()];
    for (const l of SELECTION_LAYERS) if (map.getLayer(l)) map.setFilter(l, keyFilter(keys));
  }, [selected, ready]);

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

  const flyTo = (r: SearchResult) => {
    const map = mapRef.current;
    if (map && r.bbox) {
      map.fitBounds(
        [
          [r.bbox[0], r.bbox[1]],
          [r.bbox[2], r.bbox[3]],
        ],
        { padding: 80, maxZoom: r.kind === 'uat' ? 14 : 18, duration: 1200 },
      );
    } else if (!r.bbox && !(central && r.featureId)) {
      say('Rezultatul nu are geometrie pe hartă.');
    }
    if (r.featureId) openFeature({ id: r.featureId });
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

      <div className="gp-toolbar">
        <SearchBox onPick={flyTo} central={central} />
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

      {panel ? (
        <FeaturePanel state={panel} onClose={closePanel} central={central} basicScope={basicScope} onFeature={(feature) => setPanel({ feature })} />
      ) : null}

      {panel ? null : <Legend />}

      {selected.size > 0 || selecting ? (
        <div className="gp-selection" data-testid="selection-bar">
          <span className="gp-selection__count" data-testid="selection-count">
            {selected.size === 1 ? '1 parcelă selectată' : `${selected.size} parcele selectate`}
          </span>
          {selecting ? <span className="gp-muted">Esc sau clic dreapta: ieșire din selecție</span> : null}
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
    </div>
  );
}

function Legend() {
  const items: [string, string, 'fill' | 'line' | 'double'][] = [
    [COLORS.parcelPlain, 'Parcelă fără date îmbogățite', 'fill'],
    [COLORS.parcelEnriched, 'Parcelă cu date îmbogățite', 'fill'],
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
