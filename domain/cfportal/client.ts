/**
 * HTTP client of the certificate portal (paths in simulators/cfportal/README.md). Its own account,
 * separate from the land-registry session: credentials from the connected account
 * (cfportal_sessions, POST /api/cfportal/session), else CFPORTAL_USERNAME/PASSWORD. The session
 * cookie is kept per process and account; a 401 (idle expiry) re-logs in transparently once
 * (the outside-call base's session mechanism). Every exchange goes through the outside-call base
 * (domain/outside/call.ts): its transport with the portal's shared rate limit, the deadline and
 * the caller's stop, retries of idempotent calls outside activities.
 */
import { config } from '../config';
import type { Db } from '../db/pool';
import { PortalError, looksLikeMaintenance } from '../landreg/service';
import { callerGone, outsideCall, outsideMessage, transportFailure, send, setCookies, type OutsideSession, type OutsideTarget } from '../outside/service';
import type { CfCredentials } from './rules';

const PORTAL = 'Portalul de extrase CF';

/** The portal refused the account: not retryable. */
export class CfPortalCredentialsError extends PortalError {
  constructor() {
    super(422, 'cfportal_credentials_invalid', `${PORTAL} a refuzat numele de utilizator sau parola.`, false);
  }
}
/** Maintenance page, 5xx, timeout or no answer: retryable. */
export class CfPortalUnavailableError extends PortalError {
  constructor(what: string, maintenance = false) {
    super(
      maintenance ? 503 : 502,
      maintenance ? 'portal_maintenance' : 'upstream_error',
      outsideMessage('cfportal', maintenance ? 'maintenance' : 'unreachable'),
      true,
      what.slice(0, 200),
    );
  }
}
/** A 4xx the portal meant (unknown order, bad item): retrying the same call cannot help. */
export class CfPortalRejectedError extends PortalError {
  readonly upstreamStatus: number;
  constructor(upstreamStatus: number, what: string) {
    super(502, 'upstream_error', `${PORTAL} a refuzat cererea.`, false, `${upstreamStatus} ${what}`.slice(0, 200));
    this.upstreamStatus = upstreamStatus;
  }
}

export interface CartItem {
  itemId: string;
  countyId: number;
  uatId: number;
  cadastralNumber: string;
  metadata: { reference?: string; note?: string } | null;
}
export interface PortalOrder {
  orderId: string;
  submittedAt: string;
  status: 'processing' | 'done';
  items: CartItem[];
}
export interface PortalDocument {
  documentId: string;
  itemId: string;
  countyId: number;
  uatId: number;
  cadastralNumber: string;
  cfNumber: string;
  fileName: string;
}

type Body = Record<string, unknown>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const cookies = new Map<string, string>();

/** An answer of the portal, read whole (JSON or a PDF). */
interface Answer {
  status: number;
  bytes: Buffer;
}

/** The account's session a call uses. */
interface AccountSession {
  creds: CfCredentials;
  cookie: string;
}

export class CfportalClient {
  readonly baseUrl: string;
  private readonly target: OutsideTarget;
  private readonly timeoutMs: number;

  /** `opts.db`: the caller's store's pool, whose shared schedule paces the portal. */
  constructor(
    private readonly credentials: () => Promise<CfCredentials>,
    opts: { db: Db; baseUrl?: string; timeoutMs?: number },
  ) {
    this.target = { service: 'cfportal', db: opts.db };
    this.baseUrl = (opts.baseUrl ?? config.cfportal.baseUrl).replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? config.cfportal.requestTimeoutMs;
  }

  /** One exchange on the outside-call transport, its answer read whole within the deadline. */
  private async raw(method: Method, path: string, body: Body | undefined, cookie: string | null): Promise<Answer & { cookie?: string }> {
    const headers: Record<string, string> = { accept: 'application/json, application/pdf' };
    if (cookie) headers.cookie = cookie;
    if (body) headers['content-type'] = 'application/json';
    try {
      const res = await send(this.target, {
        url: `${this.baseUrl}/cf/api${path}`,
        method,
        headers,
        body: body ? JSON.stringify(body) : undefined,
        timeoutMs: this.timeoutMs,
      });
      const bytes = await res.bytes();
      return { status: res.status, bytes, cookie: setCookies(res)[0] };
    } catch (err) {
      if (transportFailure(err) === 'aborted') throw callerGone()!.reason;
      throw new CfPortalUnavailableError(`${method} ${path}: ${(err as Error).message}`);
    }
  }

  /** Signs in; returns the account name and the session cookie. */
  async login(creds?: CfCredentials): Promise<{ username: string; cookie: string; credits: number }> {
    const c = creds ?? (await this.credentials());
    const res = await this.raw('POST', '/login', { username: c.username, password: c.password }, null);
    const text = res.bytes.toString('utf8');
    if (res.status === 401 || res.status === 403) throw new CfPortalCredentialsError();
    if (looksLikeMaintenance(res.status, text)) throw new CfPortalUnavailableError('POST /login', true);
    if (res.status !== 200) throw new CfPortalUnavailableError(`POST /login ${res.status}`);
    const cookie = res.cookie;
    if (!cookie) throw new CfPortalUnavailableError('POST /login without a session cookie');
    cookies.set(`${this.baseUrl}|${c.username}`, cookie);
    return { username: c.username, cookie, credits: (JSON.parse(text) as { credits: number }).credits };
  }

  /**
   * One call with the account's session, re-logging in once on 401 (a second 401 with a fresh
   * session is the account refused). Reads, metadata saves and removals (idempotent) are
   * tried again on a 5xx or no answer when no Temporal activity retries them; a POST (add to
   * cart, submit) never is: its caller reconciles with the cart or the order list before doing it
   * again. A POST answered 401 was refused before the portal acted, so it is sent again once
   * with the new session, as every call is.
   */
  private call(method: Method, path: string, body?: Body): Promise<Answer> {
    return outsideCall(
      {
        service: 'cfportal',
        idempotent: method !== 'POST',
        retry: { retries: 2, baseDelayMs: 200 },
        transient: (err) => err instanceof CfPortalUnavailableError && err.code !== 'portal_maintenance',
        session: this.session,
      },
      async (_attempt, session) => {
        const res = await this.raw(method, path, body, session.cookie);
        if (res.status === 401) return res;
        if (res.status >= 500 || res.status === 429) {
          throw new CfPortalUnavailableError(`${method} ${path} ${res.status}`, looksLikeMaintenance(res.status, res.bytes.toString('utf8')));
        }
        return res;
      },
    );
  }

  private readonly session: OutsideSession<AccountSession, Answer> = {
    current: async () => {
      const creds = await this.credentials();
      return { creds, cookie: cookies.get(`${this.baseUrl}|${creds.username}`) ?? (await this.login(creds)).cookie };
    },
    expired: (res) => res.status === 401,
    refresh: async (stale) => ({ creds: stale.creds, cookie: (await this.login(stale.creds)).cookie }),
    exhausted: () => {
      throw new CfPortalCredentialsError();
    },
  };

  private async json<T>(method: Method, path: string, body?: Body): Promise<{ status: number; body: T }> {
    const res = await this.call(method, path, body);
    const text = res.bytes.toString('utf8');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      throw new CfPortalUnavailableError(`${method} ${path}: not JSON`);
    }
    return { status: res.status, body: parsed as T };
  }

  private async ok<T>(method: Method, path: string, body?: Body): Promise<T> {
    const r = await this.json<T>(method, path, body);
    if (r.status >= 400) throw new CfPortalRejectedError(r.status, `${method} ${path}: ${(r.body as { message?: string } | null)?.message ?? ''}`);
    return r.body;
  }

  /** The account's user name (the queue is per account). */
  async account(): Promise<string> {
    return (await this.credentials()).username;
  }
  async credits(): Promise<number> {
    return (await this.ok<{ credits: number }>('GET', '/credits')).credits;
  }
  counties(): Promise<Array<{ id: number; name: string }>> {
    return this.ok('GET', '/counties');
  }
  uats(countyId: number): Promise<Array<{ id: number; name: string }>> {
    return this.ok('GET', `/counties/${countyId}/uats`);
  }
  search(p: { countyId: number; uatId: number; cadastralNumber: string }): Promise<{ found: boolean; cfNumber: string; uatName: string }> {
    return this.ok('GET', `/search?${new URLSearchParams({ countyId: String(p.countyId), uatId: String(p.uatId), cadastralNumber: p.cadastralNumber })}`);
  }
  async cart(): Promise<CartItem[]> {
    return (await this.ok<{ items: CartItem[] }>('GET', '/cart')).items;
  }
  addToCart(p: { countyId: number; uatId: number; cadastralNumber: string }): Promise<CartItem> {
    return this.ok('POST', '/cart/items', p);
  }
  saveMetadata(itemId: string, metadata: { reference: string; note?: string }): Promise<CartItem> {
    return this.ok('PUT', `/cart/items/${encodeURIComponent(itemId)}/metadata`, metadata);
  }
  async removeFromCart(itemId: string): Promise<void> {
    await this.ok('DELETE', `/cart/items/${encodeURIComponent(itemId)}`);
  }
  async submit(): Promise<{ orderId: string; status: number; message?: string }> {
    const r = await this.json<{ orderId?: string; message?: string }>('POST', '/cart/submit');
    return { orderId: r.body?.orderId ?? '', status: r.status, message: r.body?.message };
  }
  async orders(): Promise<PortalOrder[]> {
    return (await this.ok<{ orders: PortalOrder[] }>('GET', '/orders')).orders;
  }
  order(orderId: string): Promise<PortalOrder> {
    return this.ok('GET', `/orders/${encodeURIComponent(orderId)}`);
  }
  async documents(orderId: string): Promise<PortalDocument[]> {
    return (await this.ok<{ documents: PortalDocument[] }>('GET', `/orders/${encodeURIComponent(orderId)}/documents`)).documents;
  }
  async document(documentId: string): Promise<Buffer> {
    const res = await this.call('GET', `/documents/${encodeURIComponent(documentId)}`);
    if (res.status >= 400) throw new CfPortalRejectedError(res.status, `GET /documents/${documentId}`);
    const bytes = res.bytes;
    if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw new CfPortalUnavailableError(`GET /documents/${documentId}: not a PDF`);
    return bytes;
  }
}
