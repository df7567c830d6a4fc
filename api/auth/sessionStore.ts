/**
 * The server-side session record (table app_sessions, CONTRACT.md section 2). The cookie holds a
 * random token; the row id is its SHA-256, so reading the table is not enough to hijack a session.
 * Tokens live only in `data` (never in the cookie, never in a log line), the refresh and ID tokens
 * sealed (toRow / fromRow below), so a copy of the table does not hand out long-lived grants.
 *
 * Every request needs its session, and a map view alone sends dozens of tile requests a second,
 * so a process keeps the sessions it read for config.app.sessionCacheTtlMs (loadSessionCached).
 * Expiry (absolute and idle) is checked against the cached timestamps on every request. Whatever
 * this process writes (logout and re-sign-in delete, token refresh, touch) updates or drops its
 * entry at once; a change made by another process is seen within the TTL, or at once in shared
 * mode: a trigger names every changed or deleted row on channel `app_sessions_changed` (migration
 * 039) and each web process listens (followSessionChanges), so a sign-out through one process is
 * refused by all.
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { config } from '../../domain/config';
import { leaseToken, untilSettled } from '../../domain/db/lease';
import { childLogger } from '../../domain/log';
import { SESSION_IDLE_TIMEOUT_SECONDS, type Company, type EnrichmentScope, type SessionUser, type SessionFlags } from '../../domain/auth/rules';
import { digestWith, sealWith, unsealWith } from './sealed';

/** CONTRACT.md section 2: idle timeout 12 h (domain/auth/rules.ts), absolute lifetime 30 days. */
export { SESSION_IDLE_TIMEOUT_SECONDS };
export const SESSION_ABSOLUTE_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** last_seen_at is written at most this often, so a busy page does not write on every request. */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

export interface TokenState {
  accessToken: string;
  /** Epoch ms when the access token expires. */
  accessTokenExpiresAt: number;
  /** Epoch ms from which the middleware refreshes (a little before expiry). */
  refreshAt: number;
  refreshToken?: string;
}

export interface StoredSession {
  v: 1;
  user: SessionUser;
  groups: string[];
  enrichmentScope: EnrichmentScope | null;
  /** The `email_verified` claim (absent in sessions written before it was kept: not verified). */
  emailVerified?: boolean;
  /** Spec 5.6 flags, evaluated at sign-in and again at each token refresh. */
  flags: SessionFlags;
  tokens: TokenState;
  error?: 'RefreshAccessTokenError';
  /** A process exchanging the refresh token right now (holder id, epoch ms of the lease's end). */
  refreshLease?: { holder: string; until: number };
}

/**
 * The tokens as a row keeps them (issue 25): the access token (short-lived, forwarded on every
 * central call) in clear; the refresh token sealed with the row id as associated data
 * (api/auth/sealed.ts), plus a keyed digest of it that the refresh lease matches on. The ID token
 * is not kept (sign-out names the client instead); rows of older sessions seal one beside the
 * refresh token, and it is dropped when they are read. Rows written before sealing (tokens in
 * clear) read as signed out; migration 023 deleted them.
 */
interface TokensAtRest extends Omit<TokenState, 'refreshToken'> {
  sealed?: string;
  refreshTokenDigest?: string;
}
type StoredRow = Omit<StoredSession, 'tokens'> & { tokens: TokensAtRest & { refreshToken?: unknown; idToken?: unknown } };

const TOKENS_PURPOSE = 'app_sessions.tokens';

export const refreshTokenDigest = (refreshToken: string) => digestWith(TOKENS_PURPOSE, refreshToken);

function toRow(id: string, data: StoredSession): StoredRow {
  const { refreshToken, ...clear } = data.tokens;
  const tokens: TokensAtRest = { ...clear };
  if (refreshToken !== undefined) tokens.sealed = sealWith(TOKENS_PURPOSE, { refreshToken }, id);
  if (refreshToken !== undefined) tokens.refreshTokenDigest = refreshTokenDigest(refreshToken);
  return { ...data, tokens };
}

/** The session a row holds, tokens opened; null for a row that cannot be trusted (signed out). */
function fromRow(id: string, row: StoredRow): StoredSession | null {
  if (!row.tokens) return null;
  const { sealed, refreshTokenDigest: _d, refreshToken, idToken, ...clear } = row.tokens;
  if (refreshToken !== undefined || idToken !== undefined) return null;
  const secrets = sealed === undefined ? {} : unsealWith<{ refreshToken?: string; idToken?: string }>(TOKENS_PURPOSE, sealed, id);
  if (!secrets) return null;
  return { ...row, tokens: { ...clear, ...(secrets.refreshToken !== undefined ? { refreshToken: secrets.refreshToken } : {}) } };
}

export interface SessionRow {
  id: string;
  data: StoredSession;
  lastSeenAt: Date;
  expiresAt: Date;
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Session ids of the cookie tokens this process saw lately: every request of a map view (dozens
 * of tiles a second) derives the same id, and a hash object a request was a measurable part of a
 * tile's fixed cost (issue 45). The process holds the session rows, tokens included, in its
 * session cache anyway; the memo is emptied when it reaches its bound.
 */
const sessionIds = new Map<string, string>();
const SESSION_ID_MEMO_MAX = 10_000;

export function sessionIdFor(cookieToken: string): string {
  let id = sessionIds.get(cookieToken);
  if (id === undefined) {
    id = createHash('sha256').update(cookieToken).digest('base64url');
    // Only a token this service could have issued is remembered: a cookie of any other shape (of
    // any length a client sends, before any rate limit on the tile path) would fill the memo.
    if (!isSessionToken(cookieToken)) return id;
    if (sessionIds.size >= SESSION_ID_MEMO_MAX) sessionIds.clear();
    sessionIds.set(cookieToken, id);
  }
  return id;
}

/** The shape of the tokens newSessionToken issues: 32 random bytes, base64url. */
export function isSessionToken(cookieToken: string): boolean {
  return SESSION_TOKEN_RE.test(cookieToken);
}
const SESSION_TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export function isCompany(v: unknown): v is Company {
  return v === 'B' || v === 'U' || v === 'S' || v === 'G';
}

export async function createSession(db: pg.Pool, id: string, data: StoredSession): Promise<void> {
  await db.query(
    `INSERT INTO app_sessions (id, user_id, data, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, now(), now(), now() + make_interval(secs => $4))`,
    [id, data.user.id, JSON.stringify(toRow(id, data)), SESSION_ABSOLUTE_LIFETIME_SECONDS],
  );
}

/** A live session: not past its absolute expiry and seen within the idle timeout. */
export async function loadSession(db: pg.Pool, id: string): Promise<SessionRow | null> {
  const r = await db.query<{ id: string; data: StoredRow; last_seen_at: Date; expires_at: Date }>(
    `SELECT id, data, last_seen_at, expires_at FROM app_sessions
      WHERE id = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(secs => $2)`,
    [id, SESSION_IDLE_TIMEOUT_SECONDS],
  );
  const row = r.rows[0];
  const data = row ? fromRow(row.id, row.data) : null;
  return row && data ? { id: row.id, data, lastSeenAt: row.last_seen_at, expiresAt: row.expires_at } : null;
}

// ------------------------------------------------------------------------------------------------
// The in-process session cache
// ------------------------------------------------------------------------------------------------

/** Bound on cached sessions; the oldest read goes first (a busy office has far fewer). */
const SESSION_CACHE_MAX_ENTRIES = 10_000;

const cached = new Map<string, { row: SessionRow; readAt: number }>();
/** Reads under way, shared by the concurrent requests of one browser (a map's burst of tiles). */
const reading = new Map<string, Promise<SessionRow | null>>();
/**
 * Bumped by every forgetSession. A read that started before a forget may have seen the row the
 * forget is about (a logout's DELETE racing a tile request): its answer is used once, not cached.
 */
let generation = 0;

/** Is the row live by its own timestamps (the conditions loadSession puts into SQL)? */
function alive(row: SessionRow, now: number): boolean {
  return row.expiresAt.getTime() > now && row.lastSeenAt.getTime() > now - SESSION_IDLE_TIMEOUT_SECONDS * 1000;
}

/** Drops this process's copy of a session: after anything that changes or removes the row. */
export function forgetSession(id: string): void {
  generation++;
  cached.delete(id);
  reading.delete(id);
}

/** Empties the cache (tests). */
export function clearSessionCache(): void {
  generation++;
  cached.clear();
  reading.clear();
}

const log = childLogger('auth');

/** How long a lost listening connection waits before it connects again. */
const RELISTEN_MS = 1000;

/**
 * Keeps one connection of `db`'s server listening on `app_sessions_changed` and drops the named
 * session from this process's cache as each notification arrives (shared mode). While the
 * connection is down nothing is cached (sessions read the row on every request); when it is back,
 * the cache starts empty, as notifications sent meanwhile are lost. Answers a stop function.
 */
export function followSessionChanges(db: pg.Pool): () => Promise<void> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const c = new pg.Client(db.options);
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = undefined;
      listening = false;
      clearSessionCache();
      c.end().catch(() => undefined);
      if (stopped) return;
      log.warn({ err: err?.message }, 'session change listener lost; reconnecting');
      retry = setTimeout(() => void connect(), RELISTEN_MS);
    };
    client = c;
    c.on('notification', (n) => n.payload && forgetSession(n.payload));
    c.on('error', lost);
    c.on('end', () => lost());
    try {
      await c.connect();
      await c.query('LISTEN app_sessions_changed');
      clearSessionCache();
      listening = true;
    } catch (err) {
      lost(err as Error);
    }
  };
  following = true;
  void connect();
  return async () => {
    stopped = true;
    following = false;
    listening = false;
    clearTimeout(retry);
    const c = client;
    client = undefined;
    await c?.end().catch(() => undefined);
  };
}

/** Whether this process follows other processes' changes (shared mode), and hears them now. */
let following = false;
let listening = false;

/**
 * loadSession, answered from this process's memory when it read the row less than
 * config.app.sessionCacheTtlMs ago and the row is still live by its own timestamps.
 */
export async function loadSessionCached(db: pg.Pool, id: string): Promise<SessionRow | null> {
  // In shared mode a copy is only trusted while the listener would hear of its change.
  const ttl = following && !listening ? 0 : config.app.sessionCacheTtlMs;
  const now = Date.now();
  const hit = cached.get(id);
  if (hit && now - hit.readAt < ttl && alive(hit.row, now)) return hit.row;
  if (ttl <= 0) return loadSession(db, id);
  let pending = reading.get(id);
  if (!pending) {
    const startedAt = now;
    const startedGeneration = generation;
    pending = loadSession(db, id).then(
      (row) => {
        if (reading.get(id) === pending) reading.delete(id);
        if (generation !== startedGeneration) return row;
        cached.delete(id);
        if (row) {
          if (cached.size >= SESSION_CACHE_MAX_ENTRIES) cached.delete(cached.keys().next().value as string);
          // The TTL runs from before the read: the copy is never older than the TTL says.
          cached.set(id, { row, readAt: startedAt });
        }
        return row;
      },
      (err: unknown) => {
        if (reading.get(id) === pending) reading.delete(id);
        throw err;
      },
    );
    reading.set(id, pending);
  }
  return pending;
}

export async function touchSession(db: pg.Pool, id: string): Promise<void> {
  const r = await db.query<{ last_seen_at: Date }>(`UPDATE app_sessions SET last_seen_at = now() WHERE id = $1 RETURNING last_seen_at`, [id]);
  const hit = cached.get(id);
  // The cached copy follows, so the once-a-minute touch is not repeated on every request.
  if (hit && r.rows[0]) hit.row = { ...hit.row, lastSeenAt: r.rows[0].last_seen_at };
}

/** Deletes the session and answers what it held (for the IdP logout hint). */
export async function deleteSession(db: pg.Pool, id: string): Promise<StoredSession | null> {
  try {
    const r = await db.query<{ data: StoredRow }>(`DELETE FROM app_sessions WHERE id = $1 RETURNING data`, [id]);
    return r.rows[0] ? fromRow(id, r.rows[0].data) : null;
  } finally {
    // After the DELETE: a read that starts from here on finds no row.
    forgetSession(id);
  }
}

/** How long one token exchange may hold a session's refresh lease. */
const REFRESH_LEASE_MS = 30_000;

const withoutLease = ({ refreshLease: _l, ...data }: StoredSession): StoredSession => data;

/**
 * Exchanges a session's refresh token once across every process (spec 5.4: refresh tokens are
 * single use). The identity provider call runs with no transaction or row lock held: a lease in
 * the row, claimed by one conditional UPDATE, says who exchanges `refreshToken`; the others poll
 * until the row carries the outcome (new tokens or the refresh error). `fn` answers the new record;
 * it is written only while this caller still holds the lease. Answers null when the session is gone.
 */
export async function refreshSessionLeased(
  db: pg.Pool,
  id: string,
  refreshToken: string,
  fn: (current: StoredSession) => Promise<StoredSession>,
): Promise<StoredSession | null> {
  const holder = leaseToken();
  try {
    return await untilSettled<StoredSession | null>(async () => {
      const claimed = await db.query<{ data: StoredRow }>(
        `UPDATE app_sessions
            SET data = data || jsonb_build_object('refreshLease', jsonb_build_object(
                  'holder', $2::text, 'until', (extract(epoch FROM clock_timestamp()) * 1000)::bigint + $3::bigint))
          WHERE id = $1 AND data->'tokens'->>'refreshTokenDigest' = $4 AND NOT (data ? 'error')
            AND (NOT (data ? 'refreshLease') OR (data->'refreshLease'->>'until')::bigint < (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
        RETURNING data`,
        [id, holder, REFRESH_LEASE_MS, refreshTokenDigest(refreshToken)],
      );
      const mine = claimed.rows[0] ? fromRow(id, claimed.rows[0].data) : null;
      if (mine) {
        let next: StoredSession;
        try {
          next = withoutLease(await fn(withoutLease(mine)));
        } catch (err) {
          await db.query(`UPDATE app_sessions SET data = data - 'refreshLease' WHERE id = $1 AND data->'refreshLease'->>'holder' = $2`, [id, holder]);
          throw err;
        }
        const w = await db.query(`UPDATE app_sessions SET data = $3 WHERE id = $1 AND data->'refreshLease'->>'holder' = $2`, [
          id,
          holder,
          JSON.stringify(toRow(id, next)),
        ]);
        if (w.rowCount === 1) return next;
        // Our lease ran out and another exchange took over (or the session was deleted): its row wins.
      }
      const r = await db.query<{ data: StoredRow }>(`SELECT data FROM app_sessions WHERE id = $1`, [id]);
      const current = r.rows[0] ? fromRow(id, r.rows[0].data) : null;
      if (!current) return null;
      // Settled by someone else: new tokens, or the error the UI acts on.
      if (current.error || current.tokens.refreshToken !== refreshToken) return withoutLease(current);
      return undefined;
    });
  } finally {
    // After the write (new tokens, or the refresh error): the next request reads the new row.
    forgetSession(id);
  }
}
