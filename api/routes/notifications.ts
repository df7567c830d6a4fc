/**
 * Notifications (spec 4.5, CONTRACT.md sections 3 and 4): the in-app inbox, preferences, the
 * digest cron route, the watchlist and a parcel's change history. Domain: domain/notifications/.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute, reply } from '../http/route';
import { Siruta } from '../http/schemas';
import { requireBearer } from '../auth/bearer';
import { config } from '../../domain/config';
import { viewerOf, type SessionContext } from '../../domain/auth/rules';
import { NOTIFICATION_TYPES, PREFERENCE_KEY, PREFERENCE_KEYS } from '../../domain/notifications/rules';
import type { NotificationsService } from '../../domain/notifications/service';

const Notification = z.object({
  id: z.string().uuid(),
  userId: z.string(),
  type: z.enum(NOTIFICATION_TYPES),
  title: z.string(),
  body: z.string(),
  link: z.string().optional(),
  createdAt: z.string(),
  readAt: z.string().optional(),
});

const InboxQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  unread: z.enum(['true', 'false']).optional().openapi({ description: 'true: only unread items' }),
});
const InboxBody = z.object({ items: z.array(Notification), unreadCount: z.number().int() });

const MarkBody = z.union([
  z.object({ ids: z.array(z.string().uuid('Fiecare id trebuie să fie un UUID.')).min(1).max(500) }).strict(),
  z.object({ all: z.literal(true) }).strict(),
]);

const PreferenceShape = Object.fromEntries(PREFERENCE_KEYS.map((k) => [k, z.boolean()])) as Record<(typeof PREFERENCE_KEYS)[number], z.ZodBoolean>;
const PreferencesBody = z.object(PreferenceShape);
// PUT takes any subset; the type names themselves (`status-change`) are accepted as aliases.
const PreferencesPut = z
  .record(z.string(), z.boolean('Fiecare preferință este true sau false.'))
  .superRefine((v, ctx) => {
    const known = new Set<string>([...PREFERENCE_KEYS, ...NOTIFICATION_TYPES]);
    for (const k of Object.keys(v)) if (!known.has(k)) ctx.addIssue({ code: 'custom', path: [k], message: 'Preferință necunoscută.' });
    if (Object.keys(v).length === 0) ctx.addIssue({ code: 'custom', path: [], message: 'Nicio preferință de schimbat.' });
  })
  .openapi({ description: `Any subset of ${PREFERENCE_KEYS.join(', ')} (booleans)` });

const DigestQuery = z.object({ test: z.enum(['true', 'false']).optional() });

const WatchItem = z.object({
  id: z.string().uuid(),
  kind: z.enum(['parcel', 'uat']),
  siruta: z.number().int(),
  featureId: z.string().uuid().optional(),
  label: z.string(),
  createdAt: z.string(),
});
const WatchPost = z.union([
  z.object({ featureId: z.string().uuid('featureId trebuie să fie un UUID.') }).strict(),
  z.object({ siruta: Siruta }).strict(),
]);
const HistoryQuery = z.object({ id: z.string().uuid('id trebuie să fie un UUID.') });
const HistoryBody = z.object({
  items: z.array(
    z.object({
      at: z.string(),
      field: z.string(),
      before: z.string().nullable(),
      after: z.string().nullable(),
      syncRunId: z.string().nullable(),
      source: z.enum(['sync', 'enrichment']).openapi({ description: 'A sync run (syncRunId) or an enrichment (jobId) saw the change' }),
      jobId: z.string().nullable(),
    }),
  ),
});

const me = (auth: SessionContext | undefined) => auth!.user.id;

export function registerNotificationRoutes(router: Router, notifications: NotificationsService): void {
  defineRoute(
    router,
    { method: 'get', path: '/api/notifications/app', summary: 'In-app notifications and unread count', tags: ['notifications'], auth: 'session', query: InboxQuery, response: { description: 'Newest first', schema: InboxBody } },
    ({ auth, query }) => notifications.inbox(me(auth), { limit: query.limit, unreadOnly: query.unread === 'true' }),
  );

  defineRoute(
    router,
    {
      method: 'patch',
      path: '/api/notifications/app',
      summary: 'Mark notifications read: {ids} or {all:true}',
      tags: ['notifications'],
      auth: 'session',
      body: MarkBody,
      response: { description: 'How many were marked, and the new unread count', schema: z.object({ updated: z.number().int(), unreadCount: z.number().int() }) },
    },
    ({ auth, body }) => notifications.markRead(me(auth), 'ids' in body ? { ids: body.ids } : { all: true }),
  );

  defineRoute(
    router,
    { method: 'get', path: '/api/notifications/preferences', summary: 'Notification preferences (one switch per type, dailyDigest, instantEmail)', tags: ['notifications'], auth: 'session', response: { description: 'Every switch', schema: PreferencesBody } },
    ({ auth }) => notifications.getPreferences(me(auth)),
  );

  defineRoute(
    router,
    { method: 'put', path: '/api/notifications/preferences', summary: 'Change notification preferences (any subset)', tags: ['notifications'], auth: 'session', body: PreferencesPut, response: { description: 'Every switch after the change', schema: PreferencesBody } },
    ({ auth, body }) => {
      const change: Record<string, boolean> = {};
      for (const [k, v] of Object.entries(body)) change[(PREFERENCE_KEY as Record<string, string>)[k] ?? k] = v;
      return notifications.setPreferences(me(auth), change);
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/notifications/digest',
      summary: 'Build and send the daily digest (bearer CRON_SECRET); test=true: a test digest to the signed-in caller only, or with the bearer token to each administrator',
      tags: ['notifications'],
      // Two callers: the cron (bearer) and, with test=true, a signed-in user; checked below.
      auth: 'public',
      query: DigestQuery,
      response: { status: 202, description: 'Digests queued for delivery' },
    },
    async ({ req, auth, query }) => {
      if (query.test === 'true') {
        if (auth) {
          const r = await notifications.sendTestDigest(auth.user);
          return reply(202, { test: true, to: auth.user.email, sections: r.sections });
        }
        // The cron's own test (spec 4.5: bearer token): a test digest to each administrator.
        requireBearer(req, config.tokens.cronSecret);
        const r = await notifications.sendAdminTestDigests();
        return reply(202, { test: true, to: r.to.join(', '), recipients: r.to.length });
      }
      requireBearer(req, config.tokens.cronSecret);
      const r = await notifications.runDailyDigest();
      return reply(202, { test: false, date: r.date, users: r.considered, sent: r.sent, skipped: r.skipped });
    },
  );

  defineRoute(
    router,
    { method: 'get', path: '/api/watchlist', summary: 'Parcels and UATs the caller follows', tags: ['notifications'], auth: 'session', response: { description: 'Newest first', schema: z.object({ items: z.array(WatchItem) }) } },
    async ({ auth }) => ({ items: await notifications.listWatches(me(auth)) }),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/watchlist',
      summary: 'Follow a parcel {featureId} or a UAT {siruta}',
      tags: ['notifications'],
      auth: 'session',
      body: WatchPost,
      response: { status: 201, description: 'Followed (200 with the existing item when already followed)', schema: z.object({ item: WatchItem }) },
      failures: { 404: 'Unknown parcel or UAT', 409: 'too_many_watches: the caller follows MAX_WATCHES_PER_USER (1,000) parcels and UATs already' },
    },
    async ({ auth, body }) => {
      const r = await notifications.addWatch(me(auth), 'featureId' in body ? { featureId: body.featureId } : { siruta: body.siruta });
      return reply(r.created ? 201 : 200, { item: r.item });
    },
  );

  defineRoute(
    router,
    { method: 'delete', path: '/api/watchlist/:id', summary: 'Stop following', tags: ['notifications'], auth: 'session', params: z.object({ id: z.string().uuid('id trebuie să fie un UUID.') }), response: { status: 204, description: 'Removed' }, failures: { 404: 'Not one of the caller\'s items' } },
    async ({ auth, params, res }) => {
      await notifications.removeWatch(me(auth), params.id);
      res.status(204).end();
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/feature-history',
      summary: "A feature's change history across syncs and enrichments (owners, CF number and address hidden from restricted viewers)",
      tags: ['geoportal', 'notifications'],
      auth: 'session',
      query: HistoryQuery,
      response: { description: 'Newest first', schema: HistoryBody },
    },
    async ({ auth, query }) => {
      return { items: await notifications.featureHistory(query.id, viewerOf(auth)) };
    },
  );
}
