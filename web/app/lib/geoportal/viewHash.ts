/**
 * The map view in the URL (issue 12): `#<zoom>/<lat>/<lon>` as MapLibre's own hash writes it,
 * plus `&basemap=<id>` when a basemap other than the default is on, so a link opens the same
 * view and the browser's back button walks the views. Pure: the map component reads and writes.
 */
import { BASEMAPS, type BasemapId } from './style';

export interface MapView {
  zoom: number;
  lat: number;
  lon: number;
  basemap: BasemapId;
}

const DEFAULT_BASEMAP: BasemapId = 'none';

/** MapLibre's precision rule: enough decimals to place the centre to about a pixel. */
function decimals(zoom: number): number {
  return Math.max(0, Math.ceil((zoom * Math.LN2 + Math.log(512 / 360 / 0.5)) / Math.LN10));
}

const trim = (n: number, d: number) => String(Number(n.toFixed(d)));

export function formatViewHash(v: MapView): string {
  const d = decimals(v.zoom);
  const base = `#${trim(v.zoom, 2)}/${trim(v.lat, d)}/${trim(v.lon, d)}`;
  return v.basemap === DEFAULT_BASEMAP ? base : `${base}&basemap=${v.basemap}`;
}

/** The view a hash names, or null when it names none (empty, malformed, off the globe). */
export function parseViewHash(hash: string): MapView | null {
  const m = /^#?([^&]*)(?:&(.*))?$/.exec(hash.trim());
  if (!m) return null;
  const parts = m[1].split('/');
  if (parts.length < 3) return null;
  const [zoom, lat, lon] = parts.slice(0, 3).map(Number);
  if (![zoom, lat, lon].every(Number.isFinite)) return null;
  if (zoom < 0 || zoom > 24 || Math.abs(lat) > 85.06 || Math.abs(lon) > 180) return null;
  const params = new URLSearchParams(m[2] ?? '');
  const asked = params.get('basemap');
  const basemap = BASEMAPS.find((b) => b.id === asked)?.id ?? DEFAULT_BASEMAP;
  return { zoom, lat, lon, basemap };
}
