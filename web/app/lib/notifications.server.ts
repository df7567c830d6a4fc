/** Server-side reads of the notifications module for page loaders: its application service, on the store the API's routes use. */
import type { Store } from '../../../domain/db/store';
import { getPreferences, inbox, listWatches, unread } from '../../../domain/notifications/service';

export const unreadCountFor = (store: Store, userId: string) => unread(store.prisma, userId);
export const inboxFor = (store: Store, userId: string) => inbox(store.prisma, userId, { limit: 100 });
export const preferencesFor = (store: Store, userId: string) => getPreferences(store.prisma, userId);
export const watchlistFor = (store: Store, userId: string) => listWatches(store.prisma, userId);
