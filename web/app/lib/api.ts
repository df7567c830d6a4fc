/**
 * The pages' one client of the API (docs/architecture.md "Web → API"): every browser call to
 * `/api` goes through here. Paths are the OpenAPI document's templates (./api.routes.ts, generated
 * from the route definitions), so a call to a route the document lacks does not type-check. One
 * error mapping turns the error body `{error, message, details}` (CONTRACT.md section 1) into an
 * ApiError carrying the Romanian message shown to users. Requests are same-origin with the session
 * cookie; the browser adds the `Origin` header that the API's same-origin write check reads.
 */
import type { ApiRoutes } from './api.routes';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The documented paths answering `M`; the tile server's `/tiles/…` is outside the API document. */
export type ApiPath<M extends Method> = { [P in keyof ApiRoutes]: M extends ApiRoutes[P] ? P : never }[keyof ApiRoutes] | (M extends 'get' ? `/tiles/${string}` : never);

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status = 0,
    readonly code?: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** What the pages say when the service refuses for load (429) and names no reason. */
export const BUSY_MESSAGE = 'Prea multe cereri în acest moment; reîncercați în câteva secunde.';
export const OFFLINE_MESSAGE = 'Serverul nu răspunde. Verificați conexiunea și încercați din nou.';

/** The sign-in that returns to this very page and view (spec 5.4; the map's view is in the fragment), as the server's page guard builds it. */
export function signInAgainUrl(): string {
  if (typeof window === 'undefined') return '/auth/login';
  return `/auth/login?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search + window.location.hash)}`;
}

type ErrorBody = { error?: string; message?: string; details?: unknown } & Record<string, unknown>;

/**
 * The one error mapping: the body's message, followed by its field details when the route names
 * them (labelled with `fieldLabels` when the page has Romanian names for its fields). A 401 means
 * the session is gone; with `signInOn401` the browser goes to sign in and comes back to this page.
 */
export function errorFrom(status: number, body: ErrorBody | null, opts: Pick<CallOptions, 'fieldLabels' | 'signInOn401'> = {}): ApiError {
  if (status === 401 && opts.signInOn401 && typeof window !== 'undefined') window.location.assign(signInAgainUrl());
  const fieldLabels = opts.fieldLabels ?? {};
  const base = body?.message ?? (status === 429 ? BUSY_MESSAGE : `Cererea a eșuat (${status}).`);
  const details = (Array.isArray(body?.details) ? (body.details as Array<{ field?: string; problem?: string; message?: string }>) : [])
    .map((d) => [d.field && (fieldLabels[d.field] ?? d.field), d.problem ?? d.message].filter(Boolean).join(': '))
    .filter(Boolean);
  return new ApiError(details.length ? `${base} (${details.join('; ')})` : base, status, body?.error, body ?? undefined);
}

export interface CallOptions {
  /** Values of the path template's `{name}` parameters. */
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined> | URLSearchParams;
  /** A JSON body. */
  body?: unknown;
  /** A multipart body (file uploads). */
  form?: FormData;
  signal?: AbortSignal;
  cache?: RequestCache;
  /** Romanian names of the body's fields, for the details of a 400. */
  fieldLabels?: Record<string, string>;
  /**
   * An expired session sends the browser to sign in (the map, whose state the URL keeps); a page
   * holding typed input leaves it off and shows the message instead, so nothing typed is lost.
   */
  signInOn401?: boolean;
}

/** The URL of a documented route, e.g. for a link or a download. */
export function apiUrl(path: ApiPath<Method>, params: CallOptions['params'] = {}, query?: CallOptions['query']): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`Parametrul ${name} lipsește din ${path}.`);
    return encodeURIComponent(String(params[name]));
  });
  if (!query) return filled;
  const search = query instanceof URLSearchParams ? query : new URLSearchParams(Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
  const text = search.toString();
  return text ? `${filled}?${text}` : filled;
}

/**
 * The raw answer of a call, for streams and file downloads; a failed answer throws the mapped
 * ApiError, an unreachable server the offline message (an abort is rethrown as it came).
 */
export async function apiFetch<M extends Method>(method: M, path: ApiPath<M>, opts: CallOptions = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path, opts.params, opts.query), {
      method: method.toUpperCase(),
      credentials: 'same-origin',
      // Tiles go out as the map asks them (no Accept), so both share the browser's cache.
      headers: { ...(path.startsWith('/api/') ? { accept: 'application/json' } : {}), ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: opts.form ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
      signal: opts.signal,
      cache: opts.cache,
    });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw new ApiError(OFFLINE_MESSAGE);
  }
  if (!res.ok) throw errorFrom(res.status, (await res.json().catch(() => null)) as ErrorBody | null, opts);
  return res;
}

async function call<T>(method: Method, path: ApiPath<Method>, opts: CallOptions = {}): Promise<T> {
  const res = await apiFetch(method, path, opts);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** JSON calls by method (undefined for a 204): `api.post<Entry>('/api/registratura/entries', { body })`. */
export const api = {
  get: <T>(path: ApiPath<'get'>, opts?: CallOptions) => call<T>('get', path, opts),
  post: <T>(path: ApiPath<'post'>, opts?: CallOptions) => call<T>('post', path, opts),
  put: <T>(path: ApiPath<'put'>, opts?: CallOptions) => call<T>('put', path, opts),
  patch: <T>(path: ApiPath<'patch'>, opts?: CallOptions) => call<T>('patch', path, opts),
  delete: <T = void>(path: ApiPath<'delete'>, opts?: CallOptions) => call<T>('delete', path, opts),
};

/**
 * One vector tile of the tile server (`/tiles/{source}/{z}/{x}/{y}`, the URLs the map itself
 * loads): its bytes, or null when the tile is empty (204).
 */
export async function vectorTile(source: string, z: number, x: number, y: number): Promise<Uint8Array | null> {
  const res = await apiFetch('get', `/tiles/${encodeURIComponent(source)}/${z}/${x}/${y}`);
  if (res.status === 204) return null;
  const bytes = new Uint8Array(await res.arrayBuffer());
  return bytes.length ? bytes : null;
}

/** The error of an upload sent with XMLHttpRequest (fetch cannot report upload progress). */
export function uploadError(xhr: XMLHttpRequest, opts?: Pick<CallOptions, 'fieldLabels' | 'signInOn401'>): ApiError {
  let body: ErrorBody | null = null;
  try {
    body = JSON.parse(xhr.responseText) as ErrorBody;
  } catch {
    // not JSON: the status alone
  }
  return errorFrom(xhr.status, body, opts);
}
