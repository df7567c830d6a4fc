/** Browser-side calls of the notification and watchlist routes (CONTRACT.md section 4 shapes). */
import type { InboxItem, Preferences } from '../../../domain/notifications/inbox';
import type { HistoryItem, WatchItem } from '../../../domain/notifications/watch';

export type { HistoryItem, InboxItem, Preferences, WatchItem };

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const err = (await res.json().catch(() => null)) as { message?: string } | null;
    throw new Error(err?.message ?? `Cererea a eșuat (${res.status}).`);
  }
  return res.status === 204 ? (undefined as T) : ((await res.json()) as T);
}

export const loadInbox = (limit = 50) => call<{ items: InboxItem[]; unreadCount: number }>('GET', `/api/notifications/app?limit=${limit}`);
export const markRead = (what: { ids: string[] } | { all: true }) => call<{ updated: number; unreadCount: number }>('PATCH', '/api/notifications/app', what);
export const savePreferences = (p: Partial<Preferences>) => call<Preferences>('PUT', '/api/notifications/preferences', p);
export const sendTestDigest = () => call<{ to: string }>('POST', '/api/notifications/digest?test=true');
export const loadWatchlist = () => call<{ items: WatchItem[] }>('GET', '/api/watchlist');
export const follow = (what: { featureId: string } | { siruta: number }) => call<{ item: WatchItem }>('POST', '/api/watchlist', what);
export const unfollow = (id: string) => call<void>('DELETE', `/api/watchlist/${id}`);
export const loadHistory = (featureId: string) => call<{ items: HistoryItem[] }>('GET', `/api/geoportal/feature-history?id=${encodeURIComponent(featureId)}`);

/** Romanian names of the history fields (domain/notifications/watch.ts FIELD_LABEL). */
export const FIELD_NAMES: Record<string, string> = {
  PROPRIETARI: 'Proprietari',
  NR_CF: 'Nr. carte funciară',
  ADRESA: 'Adresă',
  CATEGORIE: 'Categorie de folosință',
  NR_CAD: 'Nr. cadastral',
  SUPRAFATA: 'Suprafață din stratul cadastral',
  GEOMETRIE: 'Geometrie',
  ADAUGATA: 'Apărută în registru',
  ELIMINATA: 'Eliminată din registru',
};

/** Romanian names of the notification types (CONTRACT.md section 3). */
export const TYPE_NAMES: Record<string, string> = {
  'status-change': 'Schimbare de stare în registratură',
  'county-sync-done': 'Sincronizare județ încheiată',
  'registry-deadline': 'Termen în registratură',
  'weekend-sync-failed': 'Pas eșuat în sincronizarea de weekend',
  'cf-extract-ready': 'Extras CF gata',
  'export-ready': 'Export gata',
  'watch-change': 'Parcelă urmărită modificată',
};
