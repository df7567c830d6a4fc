/**
 * HTTP client of the land-registry portal (paths in simulators/landreg/README.md). Every caller,
 * API or worker, shares ONE server-side portal session kept in the store: a call reads the
 * stored cookie, and on 401 the outside-call base (domain/outside/call.ts `OutsideSession`)
 * has it re-log in under a lease on the session row (domain/db/lease.ts: the sign-in itself runs
 * with no transaction or lock held), so N concurrent callers that all see the session expire
 * cause exactly one login. Credential order (spec 4.4 "Sync
 * behaviours" 6): explicit body credentials → the stored session's → LANDREG_USERNAME/PASSWORD.
 */
import { config } from '../config';
import type { Db } from '../db/pool';
import { leaseToken, untilSettled } from '../db/lease';
import {
  PortalCredentialsError,
  PortalHttpError,
  PortalRejectedError,
  PortalUnreachableError,
  PortalMaintenanceError,
  PortalMalformedError,
  PortalTimeoutError,
  looksLikeMaintenance,
} from './errors';
import { callerGone, outsideCall, transportFailure, send, setCookies, type OutsideSession, type OutsideTarget } from '../outside/service';
import {
  claimRelogin,
  releaseRelogin,
  readPortalSession,
  savePortalSession,
  clearPortalSession,
  type PortalCredentials,
  type StoredPortalSession,
} from './sessionStore';

export const PORTAL_API_PREFIX = '/eterra/api';

export interface LandregClientOptions {
  /** The caller's store's pool: the shared portal session and the portal's rate schedule live there. */
  db: Db;
  baseUrl?: string;
  timeoutMs?: number;
  requestsPerSecond?: number;
}

export interface RawAnswer {
  status: number;
  text: string;
  /** The body as received (PDF downloads); `text` is its UTF-8 reading. */
  bytes: Buffer;
  /** The session cookie the answer sets (`JSESSIONID=…` pairs as one Cookie header value). */
  cookie: string | null;
}

type Query = Record<string, string | number | boolean | undefined>;

/** Credentials from the first source that has both parts (spec 4.4 "Sync behaviours" 6). */
export function resolveCredentials(
  body: Partial<PortalCredentials> | undefined,
  session: Pick<StoredPortalSession, 'username' | 'password'> | undefined,
): PortalCredentials {
  if (body?.username && body.password) return { username: body.username, password: body.password };
  if (session?.username && session.password) return { username: session.username, password: session.password };
  return { username: config.landreg.username, password: config.landreg.password };
}

/** How many sessions one call may try before giving up (the last one made by the call itself). */
const MAX_SESSION_ATTEMPTS = 4;

/** The shared session a call uses; `ours`: this call signed in for it. */
interface LiveSession {
  cookie: string;
  sealed: string;
  ours: boolean;
}

export class LandregClient {
  readonly db: Db;
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly target: OutsideTarget;

  constructor(opts: LandregClientOptions) {
    this.db = opts.db;
    this.baseUrl = (opts.baseUrl ?? config.landreg.baseUrl).replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? config.landreg.requestTimeoutMs;
    this.target = { service: 'landreg', db: this.db, perSecond: opts.requestsPerSecond ?? config.landreg.requestsPerSecond };
  }

  private url(path: string, query?: Query): string {
    const u = new URL(`${this.baseUrl}${PORTAL_API_PREFIX}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /**
   * One HTTP exchange on the outside-call transport: the portal's shared rate limit, a deadline,
   * stopped when the request it serves ends (its deadline, its client leaving) or the activity is
   * cancelled; maintenance pages become typed errors.
   */
  async raw(method: 'GET' | 'POST', path: string, opts: { query?: Query; form?: Query; cookie?: string | null } = {}): Promise<RawAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.cookie) headers.cookie = opts.cookie;
    let body: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.form)) if (v !== undefined) p.set(k, String(v));
      body = p.toString();
    }
    let res: Awaited<ReturnType<typeof send>>;
    try {
      res = await send(this.target, { url: this.url(path, opts.query), method, headers, body, timeoutMs: this.timeoutMs });
    } catch (err) {
      throw this.failure(err, `${method} ${path}`);
    }
    let bytes: Buffer;
    try {
      bytes = await res.bytes();
    } catch (err) {
      const failure = this.failure(err, `${method} ${path}`);
      throw failure instanceof PortalUnreachableError ? new PortalHttpError(res.status, `${method} ${path}: ${(err as Error).message}`) : failure;
    }
    const text = bytes.toString('utf8');
    if (looksLikeMaintenance(res.status, text)) throw new PortalMaintenanceError();
    const pairs = setCookies(res);
    return { status: res.status, text, bytes, cookie: pairs.length ? pairs.join('; ') : null };
  }

  /** A thrown exchange as the portal's typed error; the caller's own stop is rethrown as it came. */
  private failure(err: unknown, what: string): unknown {
    switch (transportFailure(err)) {
      case 'aborted':
        return callerGone()!.reason;
      case 'timeout':
        return new PortalTimeoutError(what);
      case 'unreachable':
        return new PortalUnreachableError(`${what}: ${(err as Error).message}`);
    }
  }

  /** Signs in with the given credentials; returns the session cookie. Does not store it. */
  async signIn(creds: PortalCredentials): Promise<string> {
    const ans = await this.raw('POST', '/authentication', { form: { j_username: creds.username, j_password: creds.password } });
    if (ans.status === 401 || ans.status === 403) throw new PortalCredentialsError();
    if (ans.status !== 200) throw new PortalHttpError(ans.status, 'POST /authentication');
    const cookie = ans.cookie;
    if (!cookie) throw new PortalMalformedError('login answered without a session cookie');
    return cookie;
  }

  /** How long a sign-in may hold the lease: one portal exchange and its rate-limit wait. */
  private get leaseSeconds(): number {
    return Math.ceil(this.timeoutMs / 1000) + 10;
  }

  /** Runs fn holding the sign-in lease (waiting for it); nothing of the database is held meanwhile. */
  private async underReloginLease<T>(fn: () => Promise<T>, done?: () => Promise<T | undefined>): Promise<T> {
    const holder = leaseToken();
    return untilSettled(async () => {
      const settled = await done?.();
      if (settled !== undefined) return settled;
      if (!(await claimRelogin(this.db, holder, this.leaseSeconds))) return undefined;
      try {
        // Re-checked under the lease: the previous holder may have finished just before our claim.
        return (await done?.()) ?? (await fn());
      } finally {
        await releaseRelogin(this.db, holder);
      }
    });
  }

  /**
   * Explicit connect (login route, session POST): signs in with body → session → env
   * credentials and stores the new shared session. Serialised with re-logins.
   */
  async connect(body?: Partial<PortalCredentials>): Promise<StoredPortalSession> {
    return this.underReloginLease(async () => {
      const current = await readPortalSession(this.db);
      const creds = resolveCredentials(body, current);
      const cookie = await this.signIn(creds);
      await savePortalSession(this.db, creds, cookie);
      return readPortalSession(this.db);
    });
  }

  /** Forgets the shared session (and tells the portal, best effort). */
  async disconnect(): Promise<void> {
    const current = await readPortalSession(this.db);
    if (current.cookie) await this.raw('POST', '/logout', { cookie: current.cookie }).catch(() => undefined);
    await clearPortalSession(this.db);
  }

  /**
   * Returns a live cookie. `stale` is the sealed session a caller just saw rejected: if the store
   * still holds it (or nothing), this caller logs in; otherwise another caller already did.
   */
  private async ensureCookie(stale: string | null | undefined): Promise<LiveSession> {
    const usable = async () => {
      const current = await readPortalSession(this.db);
      return current.cookie && current.sealed && current.sealed !== stale ? { cookie: current.cookie, sealed: current.sealed, ours: false } : undefined;
    };
    return this.underReloginLease(async () => {
      const creds = resolveCredentials(undefined, await readPortalSession(this.db));
      const cookie = await this.signIn(creds);
      const sealed = await savePortalSession(this.db, creds, cookie, true);
      return { cookie, sealed, ours: true };
    }, usable);
  }

  /**
   * A call with the shared session and transparent re-login on 401 (the base's session
   * mechanism). A 401 on a session another process just made (it may already have expired: a
   * short portal session timeout, or many workers re-logging at once) adopts the next one or logs
   * in anew; only a 401 on a session this call made itself means the portal refuses the account.
   */
  async call(method: 'GET' | 'POST', path: string, opts: { query?: Query; form?: Query } = {}): Promise<RawAnswer> {
    // GET is idempotent: a 5xx, a timeout or no answer is tried again with backoff before it
    // becomes the caller's 502/504 (maintenance and refusals are not); inside an activity
    // Temporal's retry policy does that instead. Each exchange, sign-ins included, is paced by the transport.
    return outsideCall(
      {
        service: 'landreg',
        idempotent: method === 'GET',
        retry: { retries: config.landreg.retryAttempts, baseDelayMs: config.landreg.retryBaseDelayMs },
        transient: (err) => err instanceof PortalTimeoutError || err instanceof PortalUnreachableError || (err instanceof PortalHttpError && err.upstreamStatus >= 500),
        session: this.session(`${method} ${path}`),
      },
      async (_attempt, session) => {
        const ans = await this.raw(method, path, { ...opts, cookie: session.cookie });
        if (ans.status === 401) return ans;
        if (ans.status === 400 || ans.status === 404 || ans.status === 422) throw new PortalRejectedError(ans.status);
        if (ans.status >= 400) throw new PortalHttpError(ans.status, `${method} ${path}`);
        return ans;
      },
    );
  }

  private session(what: string): OutsideSession<LiveSession, RawAnswer> {
    const refused = (s: LiveSession) => {
      if (s.ours) throw new PortalCredentialsError();
    };
    return {
      current: () => this.ensureCookie(undefined),
      expired: (ans) => ans.status === 401,
      refresh: (stale) => {
        refused(stale);
        return this.ensureCookie(stale.sealed);
      },
      refreshes: MAX_SESSION_ATTEMPTS - 1,
      exhausted: (_ans, last) => {
        refused(last);
        // Bounded: sessions that keep dying under us are a portal fault, retried later.
        throw new PortalHttpError(503, `${what}: the portal keeps rejecting fresh sessions`);
      },
    };
  }

  /** JSON call; ArcGIS-style `{error:{…}}` bodies (answered with HTTP 200) become typed errors. */
  async json<T>(method: 'GET' | 'POST', path: string, opts: { query?: Query; form?: Query } = {}): Promise<T> {
    const ans = await this.call(method, path, opts);
    let parsed: unknown;
    try {
      parsed = JSON.parse(ans.text);
    } catch {
      throw new PortalMalformedError(`${method} ${path}: not JSON: ${ans.text.slice(0, 80)}`);
    }
    const e = (parsed as { error?: { message?: string; details?: string[] } } | null)?.error;
    if (e && typeof e === 'object') {
      throw new PortalMalformedError(`${method} ${path}: ${e.message ?? 'error'} ${(e.details ?? []).join('; ')}`);
    }
    return parsed as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.json<T>('GET', path, { query });
  }

  /**
   * Health ping (spec 3.1): never logs in. Any answer below 500 means the portal is up (a 401
   * only says our session is gone); 503 with the maintenance keywords means maintenance.
   */
  async ping(): Promise<{ available: boolean; maintenance: boolean; status?: number; error?: string }> {
    const current = await readPortalSession(this.db);
    try {
      const ans = await this.raw('GET', '/account', { cookie: current.cookie });
      return { available: ans.status < 500, maintenance: false, status: ans.status };
    } catch (err) {
      if (err instanceof PortalMaintenanceError) return { available: false, maintenance: true, status: 503 };
      return { available: false, maintenance: false, error: (err as Error).message };
    }
  }
}
