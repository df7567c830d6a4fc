/**
 * The in-app inbox (CONTRACT.md section 3 fields) and the notification preferences, through
 * Prisma. Preferences: one boolean per type plus dailyDigest and instantEmail; a user without a
 * row has every switch on.
 */
import type { PrismaClient } from '../db/prisma';
import { PREFERENCE_KEYS, type PreferenceKey, type Preferences } from './rules';

export interface InboxItem {
  id: string;
  userId: string;
  type: string;
  title: string;
  body: string;
  link?: string;
  createdAt: string;
  readAt?: string;
}

export async function inbox(prisma: PrismaClient, userId: string, opts: { limit: number; unreadOnly?: boolean }): Promise<{ items: InboxItem[]; unreadCount: number }> {
  const [rows, unreadCount] = await Promise.all([
    prisma.notification.findMany({
      where: { userId, ...(opts.unreadOnly ? { readAt: null } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: opts.limit,
    }),
    unread(prisma, userId),
  ]);
  return {
    items: rows.map((r) => ({
      id: r.id,
      userId: r.userId,
      type: r.type,
      title: r.title,
      body: r.body,
      ...(r.link ? { link: r.link } : {}),
      createdAt: r.createdAt.toISOString(),
      ...(r.readAt ? { readAt: r.readAt.toISOString() } : {}),
    })),
    unreadCount,
  };
}

export function unread(prisma: PrismaClient, userId: string): Promise<number> {
  return prisma.notification.count({ where: { userId, readAt: null } });
}

/** Marks the caller's own notifications read (others' ids are ignored). */
export async function markRead(prisma: PrismaClient, userId: string, what: { ids: string[] } | { all: true }): Promise<{ updated: number; unreadCount: number }> {
  const r = await prisma.notification.updateMany({
    where: { userId, readAt: null, ...('ids' in what ? { id: { in: what.ids } } : {}) },
    data: { readAt: new Date() },
  });
  return { updated: r.count, unreadCount: await unread(prisma, userId) };
}

const DEFAULTS: Preferences = Object.fromEntries(PREFERENCE_KEYS.map((k) => [k, true])) as Preferences;

function pick(row: Partial<Record<PreferenceKey, unknown>> | null): Preferences {
  const out = { ...DEFAULTS };
  if (row) for (const k of PREFERENCE_KEYS) if (typeof row[k] === 'boolean') out[k] = row[k];
  return out;
}

export async function getPreferences(prisma: PrismaClient, userId: string): Promise<Preferences> {
  return pick(await prisma.notificationPreference.findUnique({ where: { userId } }));
}

export async function setPreferences(prisma: PrismaClient, userId: string, change: Partial<Preferences>): Promise<Preferences> {
  const data = Object.fromEntries(Object.entries(change).filter(([k, v]) => (PREFERENCE_KEYS as readonly string[]).includes(k) && typeof v === 'boolean'));
  const row = await prisma.notificationPreference.upsert({ where: { userId }, create: { userId, ...data }, update: data });
  return pick(row);
}

