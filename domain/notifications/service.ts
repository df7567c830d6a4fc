/**
 * The notifications' door (docs/architecture.md "Areas"): what the inbox, preferences and watchlist
 * pages and the bell of the layout read, the same calls the notification routes make, and `notify`,
 * the one way another area raises a notification. Built once per process by `domain/services.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import { notify, type NotifyInput } from './notify';
import { notifyFeatureChanges } from './watch';

export { getPreferences, inbox, unread } from './inbox';
export { listWatches } from './watch';
export type { NotifyInput, NotifyResult } from './notify';

export function createNotificationsService({ store, mail }: AreaDeps) {
  return {
    /** Records the notification (once per idempotency key) and starts its e-mail if the user wants one. */
    notify: (n: NotifyInput) => notify(store.pool, mail, n),
    /** Tells the followers what the history rows a sync or an enrichment wrote changed (the watchlist). */
    notifyFeatureChanges: (scope: { siruta: number } | { featureIds: readonly string[] }) => notifyFeatureChanges(store.pool, mail, scope),
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
