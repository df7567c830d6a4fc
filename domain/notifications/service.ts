/**
 * The notifications' application service: what the inbox, preferences and watchlist pages and
 * the bell of the layout read, the same functions the notification routes call
 * (docs/architecture.md "Application services").
 */
export { getPreferences, inbox, unread } from './inbox';
export { listWatches } from './watch';
