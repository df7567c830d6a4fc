/** Server-side reads of the notifications for page loaders: the notifications' service from the load context, as the API's routes call it. */
import type { NotificationsService } from '../../../domain/notifications/service';

export const unreadCountFor = (notifications: NotificationsService, userId: string) => notifications.unread(userId);
export const inboxFor = (notifications: NotificationsService, userId: string) => notifications.inbox(userId, { limit: 100 });
export const preferencesFor = (notifications: NotificationsService, userId: string) => notifications.getPreferences(userId);
export const watchlistFor = (notifications: NotificationsService, userId: string) => notifications.listWatches(userId);
