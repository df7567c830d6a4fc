/**
 * Typed failures of the land-registry portal. They are AppErrors, so a route that lets one
 * escape answers with the contract body; `retryable` tells the Temporal activities whether a
 * retry can help (bad credentials and malformed answers cannot, maintenance and 5xx can). Their
 * messages are the outside-call base's (domain/outside/call.ts `outsideMessage`).
 */
import { AppError } from '../errors';
import { outsideMessage } from '../outside/service';

export class PortalError extends AppError {
  readonly retryable: boolean;
  constructor(status: number, code: string, message: string, retryable: boolean, hint?: string) {
    super(status, code, message, { hint });
    this.name = new.target.name;
    this.retryable = retryable;
  }
}

/** The portal answers 503 with its maintenance page ("mentenanță"). */
export class PortalMaintenanceError extends PortalError {
  constructor() {
    super(503, 'portal_maintenance', outsideMessage('landreg', 'maintenance'), true);
  }
}

/** The portal refused the user name or password. */
export class PortalCredentialsError extends PortalError {
  constructor() {
    super(422, 'portal_credentials_invalid', 'Portalul de cadastru a refuzat numele de utilizator sau parola.', false);
  }
}

/** No answer within config.landreg.requestTimeoutMs. */
export class PortalTimeoutError extends PortalError {
  constructor(what: string) {
    super(504, 'upstream_timeout', outsideMessage('landreg', 'timeout'), true, what);
  }
}

/** The portal answered something the client cannot read (not JSON, wrong shape, ArcGIS error). */
export class PortalMalformedError extends PortalError {
  constructor(what: string) {
    super(502, 'upstream_error', outsideMessage('landreg', 'malformed'), false, what.slice(0, 200));
  }
}

/**
 * No answer at all: connection refused or reset, DNS failure. The portal may be restarting or
 * the network flapping, so a retry can help (Temporal retries the activity).
 */
export class PortalUnreachableError extends PortalError {
  constructor(what: string) {
    super(502, 'upstream_error', outsideMessage('landreg', 'unreachable'), true, what.slice(0, 200));
  }
}

/** A 5xx (other than maintenance) or an unexpected status. */
export class PortalHttpError extends PortalError {
  readonly upstreamStatus: number;
  constructor(upstreamStatus: number, what: string) {
    super(502, 'upstream_error', outsideMessage('landreg', 'status'), upstreamStatus >= 500 || upstreamStatus === 429, `${upstreamStatus} ${what}`.slice(0, 200));
    this.upstreamStatus = upstreamStatus;
  }
}

/**
 * The portal refused the request itself (400, 404, 422 other than sign-in): what was asked does
 * not exist or is not valid there (an unknown UAT, a workspace that does not hold it). That is the
 * caller's input, so it answers 400 (404 for a 404), not an upstream failure.
 */
export class PortalRejectedError extends PortalError {
  readonly upstreamStatus: number;
  constructor(upstreamStatus: number) {
    super(
      upstreamStatus === 404 ? 404 : 400,
      upstreamStatus === 404 ? 'not_found' : 'bad_request',
      upstreamStatus === 404
        ? 'Portalul de cadastru nu cunoaște ce ați cerut (UAT, imobil sau strat inexistent).'
        : 'Portalul de cadastru a respins cererea: verificați UAT-ul și numerele introduse.',
      false,
    );
    this.upstreamStatus = upstreamStatus;
  }
}

/** Maintenance is a 503 whose page names it (spec 3.1: "status 503 and keywords"). */
export const MAINTENANCE_KEYWORDS = ['mentenanță', 'mentenanta', 'maintenance'];

export function looksLikeMaintenance(status: number, body: string): boolean {
  if (status !== 503) return false;
  const text = body.toLowerCase();
  return MAINTENANCE_KEYWORDS.some((k) => text.includes(k));
}
