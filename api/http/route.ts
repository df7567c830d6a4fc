/**
 * `defineRoute` is the one shape of every API handler: the zod schemas of the request validate it,
 * type it and document it in the OpenAPI registry; the handler receives parsed input and the
 * caller, returns a value (sent as JSON) or writes the response itself. Handlers throw AppError.
 */
import type { Request, Response, Router, RequestHandler } from 'express';
import { z, type ZodType } from 'zod';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { AppError, errors } from '../../domain/errors';
import { registry, ErrorBody } from './openapi';
import type { SessionContext } from '../../domain/auth/rules';
import { bearerToken, requireBearer } from '../auth/bearer';
import { requireAdmin } from '../auth/guards';
import { config } from '../../domain/config';
import { sendJson } from './jsonResponse';
import { JsonShapeError, scanJsonShape, walkJson } from './jsonShape';
import { declareRawFields } from './rawJson';
import { isLoopback } from '../../domain/net/loopback';
import { markRoute } from './metrics';

/**
 * `metrics`: a loopback caller, `Authorization: Bearer <METRICS_TOKEN>`, or an admin session
 * (CONTRACT.md section 6, `GET /metrics`).
 */
export type AuthKind = 'public' | 'session' | 'admin' | 'cron' | 'addressbook' | 'metrics';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec<B extends ZodType | undefined, Q extends ZodType | undefined> {
  method: Method;
  /** Express path, e.g. `/api/registratura/entries/:id`. */
  path: string;
  summary: string;
  tags: string[];
  auth: AuthKind;
  body?: B;
  query?: Q;
  params?: ZodType;
  /**
   * Documented success answer. A file or stream answer gives its media type(s) and no schema: it
   * is documented as binary under each type.
   */
  response?: { status?: number; description: string; schema?: ZodType; contentType?: string | readonly string[] };
  /** Extra documented failures beyond 400/401/500. */
  failures?: Record<number, string>;
  /** Runs before the auth check and body validation (the legacy write gate answers 410 first). */
  gate?: (req: Request) => void;
  /**
   * Top-level body fields the handler takes as JSON text when the body is large (api/http/rawJson.ts:
   * a `RawJson`, read with `jsonUtf8`): parsed and checked off the event loop, never rebuilt on it.
   */
  rawJson?: readonly string[];
}

type Infer<T> = T extends ZodType ? z.infer<T> : undefined;

export interface HandlerContext<B, Q> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: Record<string, string>;
  auth: SessionContext | undefined;
}

export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}
export const reply = (status: number, body: unknown, headers?: Record<string, string>) =>
  new Reply(status, body, headers);

export function zodDetails(err: z.ZodError): Array<{ field: string; problem: string }> {
  return err.issues.map((i) => ({ field: i.path.join('.') || '(body)', problem: i.message }));
}

export { MAX_JSON_DEPTH, MAX_JSON_NODES } from './jsonShape';

/** A refusal of the shared checks (api/http/jsonShape.ts) as the contract's 400. */
export function shapeFailure(err: JsonShapeError): AppError {
  return errors.badRequest(err.message, err.details);
}

function contractShape<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof JsonShapeError ? shapeFailure(err) : err;
  }
}

/** The raw body's nesting and size, byte by byte, before JSON.parse sees it (jsonShape.ts `scanJsonShape`). */
export function checkJsonShape(buf: Uint8Array): void {
  contractShape(() => scanJsonShape(buf));
}

/**
 * One walk of a parsed JSON value (jsonShape.ts `walkJson`): 400 past the depth or size cap,
 * else the paths of its strings holding a NUL character.
 */
export function nulPaths(value: unknown): string[] {
  return contractShape(() => walkJson(value));
}

/** Strings holding NUL (PostgreSQL cannot store one): the 400 naming each place. */
export function nulFailure(paths: string[], where: string): AppError {
  return errors.badRequest(
    `Parametrii cererii (${where}) nu sunt valizi.`,
    paths.map((field) => ({ field, problem: 'Textul conține caracterul NUL (\\u0000), care nu este permis.' })),
  );
}

function parseWith<T extends ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  // The shape first: a schema (recursive ones included) never walks a body deeper than the cap.
  nulPaths(value);
  const result = schema.safeParse(value);
  if (!result.success) {
    throw errors.badRequest(`Parametrii cererii (${where}) nu sunt valizi.`, zodDetails(result.error));
  }
  const nul = nulPaths(result.data);
  if (nul.length) throw nulFailure(nul, where);
  return result.data;
}

/**
 * A session whose token refresh failed signs nobody in for the API and tiles (spec 5.4): the
 * page sends the browser to sign in, an API client gets 401. Only /api/auth/session still answers
 * for it, so the UI can read the error.
 */
function liveSession(req: Request): boolean {
  return isLiveSession(req.auth, req.originalUrl.split('?')[0]);
}

/** The rule above for a session read outside Express (the tile front door, api/routes/tiles.ts), `path` without its query. */
export function isLiveSession(auth: SessionContext | null | undefined, path: string): boolean {
  if (!auth) return false;
  return !auth.error || path === '/api/auth/session';
}
const noSession = (req: Request) =>
  req.auth?.error ? errors.unauthorized('Sesiunea a expirat; autentificați-vă din nou.') : errors.unauthorized();

/** The access rule of a route's `auth` kind. */
function checkAuth(kind: AuthKind, req: Request): void {
  switch (kind) {
    case 'public':
      return;
    case 'cron':
      return requireBearer(req, config.tokens.cronSecret);
    case 'addressbook':
      if (liveSession(req)) return;
      return requireBearer(req, config.tokens.addressBookApiKey);
    case 'session':
      if (!liveSession(req)) throw noSession(req);
      return;
    case 'admin':
      if (!liveSession(req)) throw noSession(req);
      return requireAdmin(req.auth);
    case 'metrics':
      // req.ip is the client a loopback proxy forwards for (trust proxy), never the proxy itself.
      if (isLoopback(req.ip)) return;
      if (bearerToken(req) !== null) return requireBearer(req, config.tokens.metricsToken);
      if (!liveSession(req)) throw noSession(req);
      return requireAdmin(req.auth);
  }
}

/** Path parameters of a route without a schema; built once (a zod schema costs more to build than to run). */
const AnyParams = z.record(z.string(), z.string());

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const BINARY = z.string().openapi({ format: 'binary' });

/** The OpenAPI content of a success answer: its schema as JSON (or its one type), or binary under each media type. */
function successContent(response: RouteSpec<undefined, undefined>['response']): { content?: Record<string, { schema: ZodType }> } {
  if (!response) return {};
  const types = response.contentType === undefined ? [] : typeof response.contentType === 'string' ? [response.contentType] : [...response.contentType];
  if (response.schema) return { content: { [types[0] ?? 'application/json']: { schema: response.schema } } };
  return types.length ? { content: Object.fromEntries(types.map((t) => [t, { schema: BINARY }])) } : {};
}

export function defineRoute<B extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined>(
  router: Router,
  spec: RouteSpec<B, Q>,
  handler: (ctx: HandlerContext<Infer<B>, Infer<Q>>) => Promise<unknown> | unknown,
): void {
  if (spec.rawJson) declareRawFields(spec.method, spec.path, spec.rawJson);
  const okStatus = spec.response?.status ?? 200;
  const responses: RouteConfig['responses'] = {
    [okStatus]: {
      description: spec.response?.description ?? 'OK',
      ...successContent(spec.response),
    },
    400: { description: 'Invalid input', content: { 'application/json': { schema: ErrorBody } } },
    500: { description: 'Unexpected failure', content: { 'application/json': { schema: ErrorBody } } },
  };
  if (spec.auth !== 'public') {
    responses[401] = { description: 'No session or bad token', content: { 'application/json': { schema: ErrorBody } } };
  }
  if (spec.auth === 'admin' || spec.auth === 'metrics') {
    responses[403] = { description: 'Not an admin', content: { 'application/json': { schema: ErrorBody } } };
  }
  for (const [status, description] of Object.entries(spec.failures ?? {})) {
    responses[Number(status)] = { description, content: { 'application/json': { schema: ErrorBody } } };
  }
  const security: Array<Record<string, string[]>> =
    spec.auth === 'public'
      ? []
      : spec.auth === 'cron'
        ? [{ bearer: [] }]
        : spec.auth === 'addressbook' || spec.auth === 'metrics'
          ? [{ bearer: [] }, { session: [] }]
          : [{ session: [] }];
  registry.registerPath({
    method: spec.method,
    path: openApiPath(spec.path),
    summary: spec.summary,
    tags: spec.tags,
    security,
    request: {
      ...(spec.body ? { body: { content: { 'application/json': { schema: spec.body } } } } : {}),
      ...(spec.query ? { query: spec.query as any } : {}),
      ...(spec.params ? { params: spec.params as any } : {}),
    },
    responses,
  });

  const wrapped: RequestHandler = async (req, res, next) => {
    // The route's template for the request metrics, taken now: a failure answered by a later
    // mount (`app.use('/tiles', errorMapper)`) changes req.baseUrl before the answer ends.
    markRoute(res, `${req.baseUrl}${spec.path}`);
    try {
      // The gate first: a signed-in central-API user on a cron route (auto-refresh) learns that
      // the route is gone (410), not that a bearer token is missing (spec 5.9).
      spec.gate?.(req);
      checkAuth(spec.auth, req);
      const body = (spec.body ? parseWith(spec.body, req.body ?? {}, 'corp') : undefined) as Infer<B>;
      const query = (spec.query ? parseWith(spec.query, req.query, 'query') : undefined) as Infer<Q>;
      const params = parseWith(spec.params ?? AnyParams, req.params, 'cale') as Record<string, string>;
      const result = await handler({ req, res, body, query, params, auth: req.auth });
      if (res.headersSent) return;
      if (result instanceof Reply) await sendJson(res.set(result.headers), result.status, result.body);
      else await sendJson(res, okStatus, result ?? {});
    } catch (err) {
      next(err);
    }
  };
  router[spec.method](spec.path, wrapped);
}

export { AppError };
