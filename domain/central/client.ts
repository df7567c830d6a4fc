/**
 * The one HTTP client of the central GIS API (spec 1.4, 4.2). Every call carries the CALLER's
 * own access token (never a service token), has the spec's 30 s (504 `upstream_timeout` after),
 * and is retried once with a fresh token after an upstream 401 (the token may have been revoked
 * or have expired on the way). Upstream failures keep their status, error code and body
 * (`CentralError` → the API's error mapper); anything else is a plain Error, which the mapper
 * turns into 500 `internal_error` with the first 200 characters as hint. Each exchange goes
 * through the outside-call base (domain/outside/call.ts): its transport with the central API's
 * shared rate limit and the caller's stop besides the 30 s, the token as the call's session; it
 * is never retried there (the spec bounds a call by 30 s).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { config } from '../config';
import type { Db } from '../db/pool';
import { AppError } from '../errors';
import { childLogger } from '../log';
import { callerGone, outsideCall, outsideError, outsideMessage, transportFailure, send, type OutsideSession } from '../outside/service';

const log = childLogger('central');

/**
 * Where the caller's access token comes from. `rejected` set: the central API refused that
 * token; answer a fresh one (refreshing when nobody has yet), or throw 401.
 */
export type TokenSource = (rejected?: string) => Promise<string>;

export interface CentralRequest {
  method?: 'GET' | 'POST' | 'PATCH';
  /** Path under /api/v1, e.g. `/search`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  token: TokenSource;
}

const upstreamTimeout = () => outsideError('central', 'timeout');

/** An upstream answer of 4xx/5xx, forwarded as it came (status, error code, body). */
export function centralError(status: number, body: unknown, text: string): AppError {
  if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string') {
    const { error, message, hint, details, ...extra } = body as Record<string, unknown>;
    return new AppError(status, error as string, typeof message === 'string' ? message : 'API-ul central a refuzat cererea.', {
      hint: typeof hint === 'string' ? hint : undefined,
      details,
      extra,
    });
  }
  // The upstream's own status travels on (a 404 stays a 404), with the mapping's message.
  return new AppError(status, 'upstream_error', outsideMessage('central', 'status'), { hint: text.slice(0, 200) });
}

/** An upstream answer: the status, its headers and the body not yet read. */
export interface CentralResponse {
  status: number;
  ok: boolean;
  headers: IncomingHttpHeaders;
  body: Readable;
}

function url(req: CentralRequest): string {
  const u = new URL(`${config.central.baseUrl}/api/v1${req.path}`);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
  return u.href;
}

type Exchanged = { res: CentralResponse; text?: string };

/**
 * One HTTP exchange within the 30 s; `stream` answers as soon as the headers arrive (the
 * body then flows without the deadline, until the caller leaves), otherwise the body is read
 * inside it.
 */
async function exchange(db: Db, req: CentralRequest, token: string, stream: boolean): Promise<Exchanged> {
  try {
    const answer = await send(
      { service: 'central', db },
      {
        url: url(req),
        method: req.method ?? 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
        timeoutMs: config.central.timeoutMs,
      },
    );
    const { ok } = answer;
    if (stream && ok) return { res: { status: answer.status, ok, headers: answer.headers, body: answer.untimed() } };
    return { res: { status: answer.status, ok, headers: answer.headers, body: answer.stream() }, text: await answer.text() };
  } catch (err) {
    const failure = transportFailure(err);
    if (failure === 'aborted') throw callerGone()!.reason;
    if (failure === 'timeout') {
      log.warn({ path: req.path, timeoutMs: config.central.timeoutMs }, 'central API call timed out');
      throw upstreamTimeout();
    }
    const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
    throw new Error(`central API unreachable (${req.method ?? 'GET'} ${req.path}): ${e.code ?? e.cause?.code ?? e.cause?.message ?? e.message}`, {
      cause: err,
    });
  }
}

/** The caller's token as the call's session: once, a second 401 with a token fresh from the identity provider is the answer. */
function tokenSession(req: CentralRequest): OutsideSession<string, Exchanged> {
  return {
    current: () => req.token(),
    expired: (out) => out.res.status === 401,
    refresh: async (stale) => {
      const fresh = await req.token(stale);
      log.info({ path: req.path, refreshed: fresh !== stale }, 'central API refused the token; retrying once');
      return fresh;
    },
  };
}

function call(db: Db, req: CentralRequest, stream: boolean): Promise<Exchanged> {
  return outsideCall({ service: 'central', idempotent: (req.method ?? 'GET') === 'GET', session: tokenSession(req) }, (_attempt, token) =>
    exchange(db, req, token, stream),
  );
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Calls the central API and answers its JSON, or throws what the caller must answer. `db`: the
 * caller's store's pool, whose shared schedule paces the central API.
 */
export async function centralJson<T = unknown>(db: Db, req: CentralRequest): Promise<T> {
  const { res, text = '' } = await call(db, req, false);
  const body = parse(text);
  if (!res.ok) throw centralError(res.status, body, text);
  if (body === undefined) throw new Error(`central API answered ${res.status} without JSON: ${text.slice(0, 120)}`);
  return body as T;
}

/** Like centralJson, but a success answer is handed over with its body unread (PDF downloads). */
export async function centralStream(db: Db, req: CentralRequest): Promise<CentralResponse> {
  const { res, text = '' } = await call(db, req, true);
  if (!res.ok) throw centralError(res.status, parse(text), text);
  return res;
}
