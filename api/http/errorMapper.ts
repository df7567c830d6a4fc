/**
 * The one place that turns failures into the contract's error body. Typed AppErrors keep their
 * status and code; body-parser failures and a path the router cannot decode become 400/413; a
 * write that lost a race (a unique or foreign key, a row gone) 409/404;
 * anything else is a 500 `internal_error` whose hint is the first 200 characters of the message
 * (spec 4.2), logged with its stack.
 * A 5xx hint is scrubbed of hosts, addresses, users, URLs and file paths before it leaves: the log
 * line keeps the whole error, the caller learns only what kind of failure it was.
 */
import type { ErrorRequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError, errors } from '../../domain/errors';
import { childLogger } from '../../domain/log';
import { requestSummary } from './requestLog';
import { zodDetails } from './route';

const log = childLogger('api');

/** Removes what would describe our infrastructure from a hint (CONTRACT.md section 1). */
export function sanitizeHint(hint: string): string {
  return hint
    .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi, '<url>')
    .replace(/\b[\w.+-]+@[\w.-]+\b/g, '<user>')
    .replace(/\b(?:user|role|for user|password authentication failed for user)\s+"?[^\s",]+"?/gi, (m) => m.replace(/"?[^\s",]+"?$/, '<user>'))
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '<host>')
    .replace(/\[?[0-9a-f]*:[0-9a-f:]+\]?:\d+/gi, '<host>')
    .replace(/\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?\b/gi, '<host>')
    .replace(/\blocalhost(?::\d+)?\b/gi, '<host>')
    .replace(/(?:^|(?<=[\s'"(=:]))(?:~|\.{1,2})?\/[^\s'"),]+/g, '<path>')
    .slice(0, 200);
}

/**
 * A write that lost a race with a colleague's (two adds of one name at the same moment, an edit
 * of a row deleted meanwhile) as PostgreSQL or Prisma report it: a conflict or a row gone, never
 * a 500. The areas' own checks name the conflict better (409 `tag_exists`, `rule_exists`); this
 * is the net under the ones a race slips past.
 */
function lostRace(err: unknown): AppError | null {
  const e = err as { code?: unknown; name?: unknown; severity?: unknown } | null;
  if (!e || typeof e.code !== 'string') return null;
  const prisma = e.name === 'PrismaClientKnownRequestError';
  const pg = typeof e.severity === 'string';
  if ((prisma && e.code === 'P2002') || (pg && e.code === '23505')) {
    return errors.conflict('already_exists', 'Există deja o înregistrare cu aceleași date, adăugată probabil chiar acum de altcineva. Reîncărcați pagina și verificați.');
  }
  if (prisma && e.code === 'P2025') return errors.notFound('Înregistrarea nu mai există: a fost ștearsă între timp.');
  if ((prisma && e.code === 'P2003') || (pg && e.code === '23503')) {
    return errors.conflict('modified_concurrently', 'O înregistrare legată de aceasta a fost ștearsă între timp. Reîncărcați pagina și reîncercați.');
  }
  return null;
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const raced = lostRace(err);
  if (raced) return raced;
  // Node's own abort (a child process, a stream pipeline) carries the signal's reason as its cause.
  if ((err as Error | undefined)?.name === 'AbortError' && (err as Error).cause instanceof AppError) return (err as Error).cause as AppError;
  if (err instanceof ZodError) return errors.badRequest(undefined, zodDetails(err));
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.parse.failed') {
    return errors.badRequest('Corpul cererii nu este JSON valid.', [{ field: '(body)', problem: e.message ?? 'invalid JSON' }]);
  }
  if (e?.type === 'entity.too.large' || e?.status === 413) return errors.payloadTooLarge();
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return errors.badRequest('Codificarea cererii nu este acceptată.');
  }
  // The router's own 400: a path segment whose percent-encoding is not UTF-8 (`/ogc/collections/%FF`).
  if (err instanceof URIError && e.status === 400) {
    return errors.badRequest('Adresa cererii conține caractere codificate greșit.', [{ field: '(path)', problem: 'codificare procentuală greșită' }]);
  }
  const message = err instanceof Error ? err.message : String(err);
  return errors.internal(message.slice(0, 200));
}

export const errorMapper: ErrorRequestHandler = (err, req, res, _next) => {
  const appErr = toAppError(err);
  if (appErr.status >= 500) {
    log.error({ err, req: requestSummary(req) }, 'request failed');
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = appErr.toBody();
  if (appErr.status >= 500 && typeof body.hint === 'string') body.hint = sanitizeHint(body.hint);
  res.status(appErr.status).set(appErr.headers ?? {}).json(body);
};
