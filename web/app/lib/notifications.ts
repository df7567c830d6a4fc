/** The notification and watchlist calls (CONTRACT.md section 4 shapes), through the pages' one API client. */
import { api } from './api';
import type { HistoryItem, InboxItem, Preferences, WatchItem } from '../../../domain/notifications/service';

export type { HistoryItem, InboxItem, Preferences, WatchItem };

export const loadInbox = (limit = 50) => api.get<{ items: InboxItem[]; unreadCount: number }>('/api/notifications/app', { query: { limit } });
export const markRead = (what: { ids: string[] } | { all: true }) => api.patch<{ updated: number; unreadCount: number }>('/api/notifications/app', { body: what });
export const savePreferences = (p: Partial<Preferences>) => api.put<Preferences>('/api/notifications/preferences', { body: p });
export const sendTestDigest = () => api.post<{ to: string }>('/api/notifications/digest', { query: { test: true } });
export const loadWatchlist = () => api.get<{ items: WatchItem[] }>('/api/watchlist');
export const follow = (what: { featureId: string } | { siruta: number }) => api.post<{ item: WatchItem }>('/api/watchlist', { body: what });
export const unfollow = (id: string) => api.delete('/api/watchlist/{id}', { params: { id } });
export const loadHistory = (featureId: string) => api.get<{ items: HistoryItem[] }>('/api/geoportal/feature-history', { query: { id: featureId } });

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
  'backup-failed': 'Copie de siguranță eșuată sau întârziată',
};
