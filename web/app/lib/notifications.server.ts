/** Server-side reads of the notifications module for page loaders (same Prisma client as the API). */
import { getPrisma } from '../../../domain/db/prisma';
import { getPreferences, inbox, unread } from '../../../domain/notifications/inbox';
import { listWatches } from '../../../domain/notifications/watch';

export const unreadCountFor = (userId: string) => unread(getPrisma(), userId);
export const inboxFor = (userId: string) => inbox(getPrisma(), userId, { limit: 100 });
export const preferencesFor = (userId: string) => getPreferences(getPrisma(), userId);
export const watchlistFor = (userId: string) => listWatches(getPrisma(), userId);
