/**
 * One log line per API request: method, path, the names of the query parameters, status,
 * time and user. Written here rather than with pino-http: that library builds a child logger for
 * every request and serialises and redacts the request into it whether or not a line is ever
 * written (the test and bench stacks log at `warn`), a tenth of the central proxy's CPU per
 * request (docs/central.md). Query VALUES stay out of the log: a registry or address-book
 * search carries names, and personal data has no business in a log line.
 */
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { answeredStatus } from './metrics';

/** What the line says of the request: never a query value, never a header. */
export function requestSummary(req: Request): { method: string; path: string; query?: string[] } {
  const keys = Object.keys(req.query ?? {});
  return { method: req.method, path: req.originalUrl.split('?', 1)[0], ...(keys.length ? { query: keys } : {}) };
}

export function requestLog(log: Logger, ignore: (req: Request) => boolean = () => false): RequestHandler {
  return (req, res, next) => {
    if (ignore(req)) return next();
    const started = performance.now();
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      const finished = res.writableFinished;
      const status = answeredStatus(res);
      const level = status >= 500 ? 'error' : finished ? 'info' : 'warn';
      if (!log.isLevelEnabled(level)) return;
      log[level](
        {
          req: requestSummary(req),
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
          ...(req.auth ? { userId: req.auth.user.id } : {}),
        },
        finished ? 'request completed' : 'request aborted',
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
