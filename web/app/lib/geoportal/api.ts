/** The geoportal's calls, through the pages' one API client (../api.ts). */
import type { Bbox, FeatureView, RestrictedFeatureView, SearchResult } from '../../../../domain/geoportal/service';
import { ApiError, api, apiFetch, apiUrl } from '../api';

/** The map keeps its state in the URL: an expired session signs in again and comes back (spec 5.4). */
const MAP = { signInOn401: true } as const;

// The routes' answer shapes are the domain's (one definition, CONTRACT.md section 4).
export type { Bbox, SearchResult };
export type FullFeature = FeatureView;
export type RestrictedFeature = RestrictedFeatureView;
export type PanelFeature = FullFeature | RestrictedFeature;

export interface CfStatus {
  exists: boolean;
  status?: string;
  state?: 'processing' | 'valid' | 'expired' | 'failed';
  expiresAt?: string;
  downloadUrl?: string;
}

/** A 403 that a new sign-in may cure (new claims): the find rule's code and the upstream's. */
export const scopeProblem = (err: unknown) =>
  err instanceof ApiError && err.status === 403 && (err.code === 'scope_insufficient' || err.code === 'insufficient_scope');

export const BUILDING_LAYER = 'CLADIRI_ACTIVE';
const PARCEL_LAYER = 'TERENURI_ACTIVE';

// ---- the central API path (spec 1.4, 4.2): pilot users read through /api/gis/* and /api/cf/* ----

/** A central parcel detail: the local FeatureView's fields, or the basic panel's three. */
type CentralFeature = Partial<FullFeature> & { restricted?: true; cadastralRef?: string | null; areaValue?: number | null };

function fromCentral(f: CentralFeature): PanelFeature {
  if (f.restricted) return { cadastralRef: f.cadastralRef ?? null, areaValue: f.areaValue ?? null, restricted: true };
  return {
    id: f.id ?? '',
    layerId: f.layerId ?? PARCEL_LAYER,
    siruta: f.siruta ?? 0,
    uatName: f.uatName ?? null,
    objectId: f.objectId ?? 0,
    cadastralRef: f.cadastralRef ?? null,
    areaValue: f.areaValue ?? null,
    isActive: f.isActive ?? true,
    geometrySource: null,
    attributes: f.attributes ?? null,
    enrichment: f.enrichment ?? null,
    enrichedAt: f.enrichedAt ?? null,
    geometry: f.geometry ?? null,
  };
}

interface CentralHit {
  id: string;
  layerId: string;
  siruta: number;
  cadastral_ref: string;
  uatName: string | null;
  county: string | null;
}

/** "Nr. cadastral 103462 · Însurăței": the same number in four UATs must read as four places. */
const parcelLabel = (ref: string, uatName: string | null, siruta: number) => `Nr. cadastral ${ref} · ${uatName ?? `UAT ${siruta}`}`;

/**
 * Search, optionally narrowed to one UAT (`siruta`). On the central path parcels come from the
 * central search (by cadastral number, each hit named with its UAT); UATs, which the central API
 * does not search, and owners, which it cannot search at all, come from the local store, whose
 * answer already follows the viewer rule (owner hits only for a caller allowed to see owners).
 */
export async function searchPlaces(
  q: string,
  signal?: AbortSignal,
  central = false,
  siruta?: number,
): Promise<{ results: SearchResult[] }> {
  const params = new URLSearchParams({ q, limit: '12', ...(siruta ? { siruta: String(siruta) } : {}) });
  const local = api.get<{ results: SearchResult[] }>('/api/geoportal/search', { ...MAP, query: params, signal });
  if (!central) return local;
  const [mine, hits] = await Promise.all([local, api.get<{ features: CentralHit[] }>('/api/gis/search', { ...MAP, query: params, signal })]);
  const parcels: SearchResult[] = hits.features
    .filter((h) => h.layerId === 'TERENURI_ACTIVE')
    .map((h) => ({
      kind: 'parcel',
      label: parcelLabel(h.cadastral_ref, h.uatName, h.siruta),
      siruta: h.siruta,
      uatName: h.uatName,
      county: h.county,
      featureId: h.id,
      cadastralRef: h.cadastral_ref,
    }));
  return { results: [...mine.results.filter((x) => x.kind === 'uat'), ...parcels, ...mine.results.filter((x) => x.kind === 'owner')] };
}

/**
 * What identifies a feature for the panel: a uuid, the tile key (with its cadastral number when
 * known), or on the central path a (siruta, cadastral number) pair, e.g. a local owner hit.
 * `layerId` defaults to the parcels; a building is asked with CLADIRI_ACTIVE.
 */
export type FeatureLookup =
  | { id: string }
  | { siruta: number; objectId: number; cadastralRef?: string; layerId?: string }
  | { siruta: number; cadastralRef: string; layerId?: string };

export async function loadFeature(key: FeatureLookup, central = false): Promise<{ feature: PanelFeature }> {
  const layerId = 'id' in key ? PARCEL_LAYER : (key.layerId ?? PARCEL_LAYER);
  if (!central) {
    if (!('id' in key) && !('objectId' in key)) throw new ApiError('Obiectul nu are identificator în baza locală.', 404, 'not_found');
    return api.get<{ feature: PanelFeature }>('/api/geoportal/feature', {
      ...MAP,
      query: 'id' in key ? { id: key.id } : { siruta: key.siruta, objectId: key.objectId, layerId },
    });
  }
  if ('id' in key) return { feature: fromCentral(await api.get<CentralFeature>('/api/gis/parcela/{id}', { ...MAP, params: { id: key.id } })) };
  let cad = key.cadastralRef;
  if (!cad && 'objectId' in key) {
    // Tiles below the detail zoom carry no cadastral number: the local store names it.
    const local = await loadFeature({ siruta: key.siruta, objectId: key.objectId, layerId });
    cad = local.feature.cadastralRef ?? undefined;
  }
  if (!cad) throw new ApiError('Obiectul nu are număr cadastral.', 404, 'not_found');
  const found = await api.get<CentralFeature>('/api/gis/parcela/find', { ...MAP, query: { siruta: key.siruta, cad, layerId } });
  return { feature: fromCentral(found) };
}

/** What the map knows of a UAT it shows: its box, name and whether the store holds its parcels. */
export interface UatBounds {
  siruta: number;
  bbox: Bbox;
  name?: string;
  county?: string | null;
  synced?: boolean;
}

/** The UAT's box (its boundary, else its parcels); null when the store has neither. */
export async function loadUatBounds(siruta: number): Promise<UatBounds | null> {
  try {
    return await api.get<UatBounds>('/api/geoportal/uat-bounds', { ...MAP, query: { siruta } });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** The central enrichment round trip (cached 30 days upstream). */
export async function enrichCentral(siruta: number, cadastralRef: string, force = false): Promise<{ feature: PanelFeature; cached: boolean }> {
  const r = await api.post<{ feature: CentralFeature; cached: boolean }>('/api/gis/parcel/enrich', { ...MAP, body: { siruta, cadastralRef, force } });
  return { feature: fromCentral(r.feature), cached: r.cached };
}

export interface CentralExtract {
  id: string;
  status: 'processing' | 'completed' | 'cancelled' | 'failed';
  expiresAt: string | null;
  version: number;
}

/**
 * The extract state of a parcel on the central path, in the local CfStatus shape: the caller's
 * own order still processing first (no second order may be placed), else the shared catalogue's
 * valid extract.
 */
export async function loadCentralCfStatus(nrCad: string, siruta: number): Promise<CfStatus> {
  const [{ items }, mine] = await Promise.all([
    api.get<{ items: Array<{ orderId: string; siruta: number; cadastralRef: string; expiresAt: string }> }>('/api/cf/catalog', MAP),
    api.get<{ items: Array<CentralExtract & { siruta: number; cadastralRef: string }> }>('/api/cf/orders', { ...MAP, query: { status: 'processing', limit: 100 } }),
  ]);
  if (mine.items.some((o) => o.siruta === siruta && o.cadastralRef === nrCad)) return { exists: true, state: 'processing', status: 'processing' };
  const hit = items.find((i) => i.siruta === siruta && i.cadastralRef === nrCad);
  return hit ? { exists: true, state: 'valid', expiresAt: hit.expiresAt, downloadUrl: apiUrl('/api/cf/{id}/pdf', { id: hit.orderId }) } : { exists: false };
}

/**
 * Orders an extract; 409 `catalog_hit` is a success: the valid extract that already exists (spec
 * 3.2); 409 `order_in_progress` is the order already running (anyone's), shown as processing.
 */
export async function orderCentralCf(nrCad: string, siruta: number): Promise<CfStatus> {
  try {
    const o = await api.post<CentralExtract>('/api/cf/order', { ...MAP, body: { siruta, cadastralRef: nrCad } });
    return { exists: true, state: 'processing', status: o.status };
  } catch (err) {
    if (err instanceof ApiError && err.status === 409 && err.code === 'order_in_progress') return { exists: true, state: 'processing', status: 'order_in_progress' };
    if (err instanceof ApiError && err.status === 409 && err.code === 'catalog_hit') {
      const e = err.body?.extract as CentralExtract | undefined;
      return {
        exists: true,
        state: 'valid',
        status: 'catalog_hit',
        expiresAt: e?.expiresAt ?? undefined,
        downloadUrl: e ? apiUrl('/api/cf/{id}/pdf', { id: e.id }) : undefined,
      };
    }
    throw err;
  }
}

export const loadCfStatus = (nrCad: string, siruta: number) =>
  api.get<CfStatus>('/api/geoportal/cf-status', { ...MAP, query: { nrCad, siruta } });

export const loadCatalog = () =>
  api.get<{ sources: { name: string; minzoom: number; maxzoom: number; layer: string }[]; overview?: { url: string } }>('/tiles/catalog', MAP);

/** Posts the export and hands the file to the browser as a download; answers the file name. */
export async function downloadExport(format: 'geojson' | 'dxf' | 'gpkg', featureIds: string[]): Promise<string> {
  const res = await apiFetch('post', '/api/geoportal/export', { ...MAP, body: { format, featureIds } });
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `export.${format}`;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}
