/**
 * The one transport of every outside call (domain/outside/call.ts): undici on one keep-alive
 * connection pool per process. Each exchange is paced by the service's shared limiter and bounded
 * by its deadline and the caller's stop; request bodies may be streams (a PDF upload is never
 * held whole in memory) and answers are streams until the client reads them. The AI vendors'
 * SDKs get the same transport as their `fetch` (`outsideFetch`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, fetch as undiciFetch, interceptors, request } from 'undici';
import type { Db } from '../db/pool';
import { callerGone, outsideLimiter, type OutsideService } from './call';
import { callerSignals } from './caller';

/**
 * One keep-alive pool per process for every outside service. Global fetch cost about a
 * millisecond of CPU per call (WHATWG streams, Headers, Response objects), most of the central
 * proxy's overhead (scripts/bench/70-central.ts); undici's request API answers the same bytes over
 * the same kept-alive connections for a third of that.
 */
const dispatcher = new Agent();
/** The same pool following redirects, as a browser reading a public page would. */
const following = dispatcher.compose(interceptors.redirect({ maxRedirections: 5 }));

/** Whose schedule paces an exchange: the service's limiter on the caller's store's pool. */
export interface OutsideTarget {
  service: OutsideService;
  db: Db;
  /** Rate of the service's limiter; its configured rate by default (0 = none). */
  perSecond?: number;
}

export interface OutsideRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** A stream is sent as it is read (give its `content-length` when known). */
  body?: string | Buffer | Readable;
  /** Deadline of the exchange, until its answer is read (or handed over with `untimed`). */
  timeoutMs: number;
  /** The client's own stop besides the caller's (e.g. a request's `clientGone`). */
  signal?: AbortSignal;
  /** Follow redirects (a public web page); an API's redirect is its answer. */
  follow?: boolean;
}

export interface OutsideAnswer {
  status: number;
  /** A 2xx status. */
  ok: boolean;
  headers: IncomingHttpHeaders;
  text(): Promise<string>;
  bytes(): Promise<Buffer>;
  /** The body as a stream, still under the deadline. */
  stream(): Readable;
  /** The body as a stream past the deadline (a long download): only the caller's stop ends it. */
  untimed(): Readable;
}

async function paced(target: OutsideTarget, own?: AbortSignal): Promise<void> {
  const gone = callerGone(own);
  if (gone) throw gone.reason;
  await outsideLimiter(target.db, target.service, target.perSecond).take();
}

/** A deadline that the caller ends early (`clear`) once the part it bounds has arrived. */
function deadline(timeoutMs: number, own?: AbortSignal): { signal: AbortSignal; clear: () => void } {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  // The exchange in flight keeps the process up, not its deadline.
  timer.unref();
  return { signal: AbortSignal.any([ctl.signal, ...callerSignals(), ...(own ? [own] : [])]), clear: () => clearTimeout(timer) };
}

/**
 * One HTTP exchange: paced, then sent on the shared pool. Throws what undici throws (read it with
 * `transportFailure`): the deadline's `TimeoutError`, the caller's reason, a connection error.
 */
export async function send(target: OutsideTarget, req: OutsideRequest): Promise<OutsideAnswer> {
  await paced(target, req.signal);
  const limit = deadline(req.timeoutMs, req.signal);
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(req.url, { dispatcher: req.follow ? following : dispatcher, method: req.method ?? 'GET', headers: req.headers, body: req.body, signal: limit.signal });
  } catch (err) {
    limit.clear();
    throw err;
  }
  const body = answer.body;
  body.once('close', limit.clear);
  return {
    status: answer.statusCode,
    ok: answer.statusCode >= 200 && answer.statusCode < 300,
    headers: answer.headers,
    text: () => body.text(),
    bytes: async () => Buffer.from(await body.arrayBuffer()),
    stream: () => body,
    untimed: () => {
      limit.clear();
      return body;
    },
  };
}

/** The `name=value` pairs an answer's Set-Cookie lines set (a session cookie). */
export function setCookies(answer: OutsideAnswer): string[] {
  const lines = answer.headers['set-cookie'];
  return (Array.isArray(lines) ? lines : lines ? [lines] : []).map((l) => l.split(';')[0].trim()).filter((p) => p.includes('=') && !p.endsWith('='));
}

/**
 * The transport as a `fetch`, for the vendor SDKs that take one: each request paced like `send`
 * and bounded, to the end of its answer (a streamed completion too), by `timeoutMs`, the caller's
 * stop, `opts.signal` and the SDK's own signal.
 */
export function outsideFetch(target: OutsideTarget, opts: { timeoutMs: number; signal?: AbortSignal }): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    await paced(target, opts.signal);
    const signal = AbortSignal.any([AbortSignal.timeout(opts.timeoutMs), ...callerSignals(), ...[opts.signal, init?.signal].filter((s): s is AbortSignal => !!s)]);
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher, signal });
  }) as unknown as typeof fetch;
}
