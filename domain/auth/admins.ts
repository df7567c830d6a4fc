/**
 * The administrators known from their sessions (app_sessions is sign-in's table,
 * domain/db/owners.ts): users live in the identity provider, so an administrator who signed in
 * and whose session has not expired is known here.
 */
import type { Db } from '../db/pool';

export async function recentAdmins(db: Db): Promise<string[]> {
  const r = await db.query<{ user_id: string }>(
    `SELECT DISTINCT user_id FROM app_sessions WHERE (data->'flags'->>'isAdmin')::boolean IS TRUE AND expires_at > now() ORDER BY user_id`,
  );
  return r.rows.map((x) => x.user_id);
}
