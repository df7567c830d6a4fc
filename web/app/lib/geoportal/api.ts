/** Browser-side calls of the geoportal routes; failures carry the Romanian `message` of the error body. */
import type { Bbox, FeatureView, RestrictedFeatureView, SearchResult } from '../../../../domain/geoportal/types';

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

export class ApiError extends Error {}

async function failure(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { message?: string } | null;
  return new ApiError(body?.message ?? `Cererea a eșuat (${res.status}).`);
}

async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

export const searchPlaces = (q: string, signal?: AbortSignal) =>
  getJson<{ results: SearchResult[] }>(`/api/geoportal/search?${new URLSearchParams({ q, limit: '12' })}`, signal);

export const loadFeature = (key: { id: string } | { siruta: number; objectId: number }) =>
  getJson<{ feature: PanelFeature }>(
    `/api/geoportal/feature?${new URLSearchParams('id' in key ? { id: key.id } : { siruta: String(key.siruta), objectId: String(key.objectId) })}`,
  );

export const loadCfStatus = (nrCad: string, siruta: number) =>
  getJson<CfStatus>(`/api/geoportal/cf-status?${new URLSearchParams({ nrCad, siruta: String(siruta) })}`);

export const loadCatalog = () =>
  getJson<{ sources: { name: string; minzoom: number; maxzoom: number; layer: string }[]; overview?: { url: string } }>('/tiles/catalog');

/** Posts the export and hands the file to the browser as a download; answers the file name. */
export async function downloadExport(format: 'geojson' | 'dxf' | 'gpkg', featureIds: string[]): Promise<string> {
  const res = await fetch('/api/geoportal/export', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ format, featureIds }),
  });
  if (!res.ok) throw await failure(res);
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
