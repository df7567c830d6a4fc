/**
 * Personal access tokens for desktop GIS (issue 29, CONTRACT.md section 6 "/api/tokens"): a user
 * names a token, sees its secret once, and QGIS or GDAL sends it as `Authorization: Bearer` on
 * GET /ogc/* and GET /tiles/*. The row keeps the SHA-256 of the secret (256 random bits: a slow
 * KDF would add nothing), the identity it signs in as, an expiry and the last use.
 *
 * The identity (user, groups, enrichment scope, verified e-mail) is taken from the session that
 * creates the token and replaced at each later sign-in of the user and at each refresh of a
 * session that brings the provider's claims (api/auth/session.ts), so a narrowed scope reaches
 * the user's tokens within an access token's lifetime while the user works in the app; the flags (basic panel, admin) are evaluated again at
 * every use against today's lists, like a session refresh does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { withTransaction, type Db } from '../db/pool';
import { errors } from '../errors';
import { MAX_TOKENS_PER_USER, type EnrichmentScope } from './rules';
/** last_used_at is written at most this often per token. */
const TOUCH_INTERVAL_MS = 60_000;
/** The secret's prefix: lets a leaked token be recognised (secret scanners, logs). */
export const TOKEN_PREFIX = 'cgp_pat_';

export interface TokenIdentity {
  user: { id: string; email: string; name: string; company: 'B' | 'U' | 'S' | 'G' | null };
  groups: string[];
  enrichmentScope: EnrichmentScope | null;
  emailVerified: boolean;
}

export interface TokenSummary {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  /** The owner's e-mail: only in an administrator's list of every user's tokens. */
  userEmail?: string;
}

export const tokenHash = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

type Row = { id: string; name: string; created_at: Date; expires_at: Date; last_used_at: Date | null; user_email?: string };
const summary = (r: Row): TokenSummary => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at.toISOString(),
  expiresAt: r.expires_at.toISOString(),
  lastUsedAt: r.last_used_at ? r.last_used_at.toISOString() : null,
  ...(r.user_email !== undefined ? { userEmail: r.user_email } : {}),
});

export async function createToken(db: Db, identity: TokenIdentity, input: { name: string; expiresInDays: number }): Promise<TokenSummary & { token: string }> {
  const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  // A lock per user around the count and the insert: under READ COMMITTED two creates running
  // side by side would each count 19 and both insert; the second now counts after the first commits.
  const row = await withTransaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('personal-access-tokens:' || $1))`, [identity.user.id]);
    const r = await tx.query<Row>(
      `INSERT INTO personal_access_tokens (user_id, name, token_hash, identity, expires_at)
       SELECT $1, $2, $3, $4, now() + make_interval(days => $5)
        WHERE (SELECT count(*) FROM personal_access_tokens
                WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()) < $6
       RETURNING id, name, created_at, expires_at, last_used_at`,
      [identity.user.id, input.name, tokenHash(secret), JSON.stringify(identity), input.expiresInDays, MAX_TOKENS_PER_USER],
    );
    return r.rows[0];
  }, db);
  if (!row) {
    throw errors.conflict(
      'too_many_tokens',
      `Aveți deja ${MAX_TOKENS_PER_USER} tokenuri active. Revocați unul pe care nu îl mai folosiți, apoi creați altul.`,
    );
  }
  return { ...summary(row), token: secret };
}

/**
 * Tokens that still work (not revoked, not expired), newest first: the caller's own, or with
 * `everyUser` (an administrator's view, CONTRACT 6) every user's, each with its owner's e-mail.
 */
export async function listTokens(db: Db, userId: string, opts: { everyUser?: boolean } = {}): Promise<TokenSummary[]> {
  const r = opts.everyUser
    ? await db.query<Row>(
        `SELECT id, name, created_at, expires_at, last_used_at, identity->'user'->>'email' AS user_email FROM personal_access_tokens
          WHERE revoked_at IS NULL AND expires_at > now()
          ORDER BY created_at DESC, id`,
      )
    : await db.query<Row>(
        `SELECT id, name, created_at, expires_at, last_used_at FROM personal_access_tokens
          WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()
          ORDER BY created_at DESC, id`,
        [userId],
      );
  return r.rows.map(summary);
}

/** Revokes a live token: the caller's own, or any user's for an administrator; otherwise 404. */
export async function revokeToken(db: Db, caller: { userId: string; isAdmin: boolean }, id: string): Promise<string> {
  const r = await db.query<{ token_hash: string }>(
    `UPDATE personal_access_tokens SET revoked_at = now()
      WHERE id = $1 AND ($3 OR user_id = $2) AND revoked_at IS NULL
      RETURNING token_hash`,
    [id, caller.userId, caller.isAdmin],
  );
  if (!r.rows[0]) throw errors.notFound('Tokenul nu există sau a fost deja revocat.');
  return r.rows[0].token_hash;
}

/** A later sign-in, or a session refresh with the provider's claims, replaces what the user's tokens sign in as (a narrowed scope reaches them). */
export async function refreshTokenIdentities(db: Db, identity: TokenIdentity): Promise<void> {
  await db.query(`UPDATE personal_access_tokens SET identity = $2, identity_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [
    identity.user.id,
    JSON.stringify(identity),
  ]);
}

export interface LiveToken {
  id: string;
  identity: TokenIdentity;
  expiresAt: number;
  /** When the identity provider last confirmed the identity (creation, a sign-in, a refresh with claims). */
  identityAt: number;
}

/** The token a secret belongs to when it is neither revoked nor expired; null otherwise. */
export async function findLiveToken(db: Db, hash: string): Promise<LiveToken | null> {
  const r = await db.query<{ id: string; identity: TokenIdentity; expires_at: Date; last_used_at: Date | null; identity_at: Date }>(
    `SELECT id, identity, expires_at, last_used_at, identity_at FROM personal_access_tokens
      WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now()`,
    [hash],
  );
  const row = r.rows[0];
  if (!row) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= TOUCH_INTERVAL_MS) {
    await db.query(`UPDATE personal_access_tokens SET last_used_at = now() WHERE id = $1`, [row.id]);
  }
  return { id: row.id, identity: row.identity, expiresAt: row.expires_at.getTime(), identityAt: row.identity_at.getTime() };
}
