/**
 * The ONE shared portal session (spec 3.1, table landreg_portal_sessions, row 'shared'). The
 * cookie and the password that made it are kept together, encrypted (domain/crypto/secretBox),
 * so any process can re-login transparently when the portal forgets the session. Connected ⇔
 * cookies_encrypted IS NOT NULL. Health-ping results live on the same row.
 */
import type { Db } from '../db/pool';
import { decryptSecret, encryptSecret } from '../crypto/secretBox';

export interface PortalCredentials {
  username: string;
  password: string;
}

export interface StoredPortalSession {
  username: string | null;
  /** `Cookie` header value, decrypted; null when disconnected. */
  cookie: string | null;
  /** Password kept with the cookie for transparent re-login; null when disconnected. */
  password: string | null;
  /** The encrypted blob as stored: identifies "the session I used" when deciding to re-login. */
  sealed: string | null;
  connectedAt: Date | null;
  lastUsedAt: Date | null;
  lastHealthCheckAt: Date | null;
  consecutiveFailures: number;
  portalMaintenance: boolean;
  portalAvailable: boolean;
}

interface Row {
  username: string | null;
  cookies_encrypted: string | null;
  connected_at: Date | null;
  last_used_at: Date | null;
  last_health_check_at: Date | null;
  consecutive_failures: number;
  portal_maintenance: boolean;
  portal_available: boolean;
}

interface Sealed {
  cookie: string;
  password: string;
}

/**
 * Claims the right to sign in to the portal (one sign-in at a time across every process) for
 * `seconds`; a single statement, so no transaction stays open over the HTTP call. True when won.
 */
export async function claimRelogin(db: Db, holder: string, seconds: number): Promise<boolean> {
  const r = await db.query(
    `UPDATE landreg_portal_sessions
        SET relogin_lease = $1, relogin_lease_until = now() + make_interval(secs => $2)
      WHERE id = 'shared' AND (relogin_lease IS NULL OR relogin_lease_until < now())`,
    [holder, seconds],
  );
  return r.rowCount === 1;
}

/** Gives the sign-in lease back, if this holder still has it. */
export async function releaseRelogin(db: Db, holder: string): Promise<void> {
  await db.query(
    `UPDATE landreg_portal_sessions SET relogin_lease = NULL, relogin_lease_until = NULL WHERE id = 'shared' AND relogin_lease = $1`,
    [holder],
  );
}

export async function readPortalSession(db: Db): Promise<StoredPortalSession> {
  const r = await db.query<Row>(
    `SELECT username, cookies_encrypted, connected_at, last_used_at, last_health_check_at,
            consecutive_failures, portal_maintenance, portal_available
       FROM landreg_portal_sessions WHERE id = 'shared'`,
  );
  const row = r.rows[0];
  if (!row) {
    // The migration seeds the row; recreate it if someone deleted it.
    await db.query(`INSERT INTO landreg_portal_sessions (id) VALUES ('shared') ON CONFLICT DO NOTHING`);
    return readPortalSession(db);
  }
  let sealed: Sealed | null = null;
  if (row.cookies_encrypted) {
    try {
      sealed = JSON.parse(await decryptSecret(row.cookies_encrypted)) as Sealed;
    } catch {
      // A changed ENCRYPTION_SECRET makes the stored session unreadable: treat as disconnected.
      sealed = null;
    }
  }
  return {
    username: row.username,
    cookie: sealed?.cookie ?? null,
    password: sealed?.password ?? null,
    sealed: sealed ? row.cookies_encrypted : null,
    connectedAt: row.connected_at,
    lastUsedAt: row.last_used_at,
    lastHealthCheckAt: row.last_health_check_at,
    consecutiveFailures: row.consecutive_failures,
    portalMaintenance: row.portal_maintenance,
    portalAvailable: row.portal_available,
  };
}

/** Stores a fresh login; returns the sealed blob. `keepConnectedAt` is used by re-logins. */
export async function savePortalSession(db: Db, creds: PortalCredentials, cookie: string, keepConnectedAt = false): Promise<string> {
  const sealed = await encryptSecret(JSON.stringify({ cookie, password: creds.password } satisfies Sealed));
  await db.query(
    `UPDATE landreg_portal_sessions
        SET username = $1, cookies_encrypted = $2, last_used_at = now(),
            connected_at = CASE WHEN $3::boolean AND connected_at IS NOT NULL THEN connected_at ELSE now() END,
            portal_maintenance = false, portal_available = true
      WHERE id = 'shared'`,
    [creds.username, sealed, keepConnectedAt],
  );
  return sealed;
}

export async function clearPortalSession(db: Db): Promise<void> {
  await db.query(
    `UPDATE landreg_portal_sessions SET cookies_encrypted = NULL, connected_at = NULL WHERE id = 'shared'`,
  );
}

export interface HealthRecord {
  available: boolean;
  maintenance: boolean;
}

/** The last portal health ping (spec 3.1, every 3 minutes), for the infrastructure health. */
export async function lastPortalPing(db: Db): Promise<{ at: Date | null; available: boolean; maintenance: boolean; consecutiveFailures: number } | null> {
  const r = await db.query<Pick<Row, 'last_health_check_at' | 'portal_available' | 'portal_maintenance' | 'consecutive_failures'>>(
    `SELECT last_health_check_at, portal_available, portal_maintenance, consecutive_failures FROM landreg_portal_sessions WHERE id = 'shared'`,
  );
  const row = r.rows[0];
  return row
    ? { at: row.last_health_check_at, available: row.portal_available, maintenance: row.portal_maintenance, consecutiveFailures: row.consecutive_failures }
    : null;
}

/** Records one health ping; consecutive failures count up until a ping succeeds. */
export async function recordPortalHealth(db: Db, h: HealthRecord): Promise<{ consecutiveFailures: number }> {
  const r = await db.query<{ consecutive_failures: number }>(
    `UPDATE landreg_portal_sessions
        SET last_health_check_at = now(), portal_available = $1, portal_maintenance = $2,
            consecutive_failures = CASE WHEN $1 THEN 0 ELSE consecutive_failures + 1 END
      WHERE id = 'shared' RETURNING consecutive_failures`,
    [h.available, h.maintenance],
  );
  return { consecutiveFailures: r.rows[0]?.consecutive_failures ?? 0 };
}
