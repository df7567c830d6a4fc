/**
 * The users directory (`app_users`): users live in the identity provider, so the notifications
 * module learns their address and company at sign-in (api/auth/routes.ts calls recordSignIn).
 */
import type { Db } from '../db/pool';
import type { PrismaClient } from '../db/prisma';

export interface DirectoryUser {
  id: string;
  email: string;
  name: string | null;
  company: 'B' | 'U' | 'S' | 'G' | null;
  isAdmin: boolean;
}

export async function recordSignIn(db: Db, u: { id: string; email: string; name?: string | null; company?: string | null; isAdmin: boolean }): Promise<void> {
  await db.query(
    `INSERT INTO app_users (id, email, name, company, is_admin) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, name = EXCLUDED.name, company = EXCLUDED.company,
       is_admin = EXCLUDED.is_admin, last_seen_at = now()`,
    [u.id, u.email, u.name ?? null, u.company ?? null, u.isAdmin],
  );
}

type Row = { id: string; email: string; name: string | null; company: DirectoryUser['company']; is_admin: boolean };
const toUser = (r: Row): DirectoryUser => ({ id: r.id, email: r.email, name: r.name, company: r.company, isAdmin: r.is_admin });

export async function usersByIds(db: Db, ids: readonly string[]): Promise<DirectoryUser[]> {
  if (ids.length === 0) return [];
  const r = await db.query<Row>(`SELECT id, email, name, company, is_admin FROM app_users WHERE id = ANY($1::text[]) ORDER BY id`, [ids]);
  return r.rows.map(toUser);
}

export async function adminUsers(db: Db): Promise<DirectoryUser[]> {
  const r = await db.query<Row>(`SELECT id, email, name, company, is_admin FROM app_users WHERE is_admin ORDER BY id`);
  return r.rows.map(toUser);
}

export async function allUsers(db: Db): Promise<DirectoryUser[]> {
  const r = await db.query<Row>(`SELECT id, email, name, company, is_admin FROM app_users ORDER BY id`);
  return r.rows.map(toUser);
}

/** The e-mail and name of each of these users the directory knows, by id. */
export async function directoryNames(prisma: PrismaClient, ids: readonly string[]): Promise<Map<string, { email: string; name: string | null }>> {
  const users = await prisma.appUser.findMany({ where: { id: { in: [...ids] } }, select: { id: true, email: true, name: true } });
  return new Map(users.map((u) => [u.id, { email: u.email, name: u.name }]));
}
