/**
 * Typed failures that carry the contract's error body (CONTRACT.md section 1). Domain code and
 * route handlers throw these; the API's single error mapper turns them into HTTP answers.
 */
export interface AppErrorOptions {
  hint?: string;
  details?: unknown;
  /** Extra top-level fields of the error body (e.g. `runningJobs`, `jobId`). */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly hint?: string;
  readonly details?: unknown;
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, message: string, opts: AppErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.hint = opts.hint;
    this.details = opts.details;
    this.extra = opts.extra;
    this.headers = opts.headers;
  }

  toBody(): Record<string, unknown> {
    return {
      error: this.code,
      message: this.message,
      ...(this.hint !== undefined ? { hint: this.hint } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
      ...(this.extra ?? {}),
    };
  }
}

/** nginx's "client closed request": the status of work its client left, answered and counted. */
export const CLIENT_CLOSED_STATUS = 499;

export const errors = {
  badRequest: (message = 'Cererea nu este validă.', details?: unknown) =>
    new AppError(400, 'bad_request', message, { details }),
  unauthorized: (message = 'Autentificare necesară.') => new AppError(401, 'unauthorized', message),
  forbidden: (message = 'Nu aveți dreptul să efectuați această operațiune.') =>
    new AppError(403, 'forbidden', message),
  notFound: (message = 'Resursa nu a fost găsită.') => new AppError(404, 'not_found', message),
  conflict: (code: string, message: string, extra?: Record<string, unknown>) =>
    new AppError(409, code, message, { extra }),
  goneCentralApi: () =>
    new AppError(
      410,
      'gone_central_api',
      'Această operațiune nu mai este disponibilă pe calea veche; contul dumneavoastră folosește API-ul central.',
    ),
  payloadTooLarge: (message = 'Cererea depășește dimensiunea maximă permisă.') =>
    new AppError(413, 'payload_too_large', message),
  /** Work stopped because its client left: nobody reads it, and a non-5xx status keeps it out of the error log. */
  clientClosed: () => new AppError(CLIENT_CLOSED_STATUS, 'client_closed_request', 'Cererea a fost întreruptă de client.'),
  rateLimited: (retryAfterSeconds: number, message = 'Prea multe cereri. Încercați din nou peste câteva secunde.') =>
    new AppError(429, 'rate_limited', message, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      extra: { retryAfter: retryAfterSeconds },
    }),
  upstream: (message = 'Serviciul extern a răspuns cu o eroare.', hint?: string) =>
    new AppError(502, 'upstream_error', message, { hint }),
  portalMaintenance: () =>
    new AppError(503, 'portal_maintenance', 'Portalul de cadastru este în mentenanță. Încercați mai târziu.'),
  internal: (hint?: string) =>
    new AppError(500, 'internal_error', 'A apărut o eroare neașteptată.', { hint }),
};
