/**
 * Every request counted and timed by the route that answered it (docs/operations.md "Watching
 * it"): Express's matched route path (`/api/registratura/entries/:id`), never the raw URL, so ids
 * and query strings never become label values and the series stay bounded. A request no route
 * matched is `(unmatched)` under the API prefixes and `(ui)` elsewhere (the Remix pages and their
 * assets, which have no Express route).
 */
import type { Request, RequestHandler, Response } from 'express';
import { CLIENT_CLOSED_STATUS } from '../../domain/errors';
import { recordRequest } from '../../domain/metrics';

const API_PREFIXES = ['/api/', '/tiles/', '/ogc', '/auth/'];

const ROUTE = Symbol('route template');

/** Records the template of the route that took the request (defineRoute does, as it starts). */
export function markRoute(res: Response, template: string): void {
  (res.locals as Record<symbol, string>)[ROUTE] = template;
}

export function routeLabel(req: Request, res: Response): string {
  const marked = (res.locals as Record<symbol, string | undefined>)[ROUTE];
  if (marked) return marked;
  // A plain Express route (sign-in's redirects): its router's mount is still req.baseUrl.
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  return API_PREFIXES.some((p) => req.originalUrl.startsWith(p)) ? '(unmatched)' : '(ui)';
}

/**
 * The status a request is counted and logged with: the one sent, or 499 (nginx's "client closed
 * request") for a client that left before any answer, whose default 200 would count an abandoned
 * request as served. A client that left during the body keeps the status it was being sent.
 */
export function answeredStatus(res: Response): number {
  return res.headersSent ? res.statusCode : CLIENT_CLOSED_STATUS;
}

export function httpMetrics(): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      recordRequest(routeLabel(req, res), req.method, answeredStatus(res), Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
