/**
 * A real signed-in session without the identity provider: the same record the sign-in callback
 * writes (api/auth/routes.ts sessionFromTokens + createSession), flags evaluated by the same
 * evaluateFlags with the configured lists, stored in app_sessions, and the users-directory row
 * (app_users) the callback upserts. Answers the Cookie header for
 * requests to an app built with createApp() (or the running stack, same database).
 *
 *   const cookie = await createTestSession({ email: 'dan@birou.ro', company: 'U' });
 *   await fetch(`${url}/api/geoportal/search?q=cluj`, { headers: { cookie } });
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { config } from '../../domain/config';
import { getPool } from '../../domain/db/pool';
import { evaluateFlags, type SessionFlags } from '../../domain/auth/flags';
import { createSession, deleteSession, newSessionToken, sessionIdFor, type StoredSession } from '../../api/auth/sessionStore';
import { SESSION_COOKIE } from '../../api/auth/cookies';
import { recordSignIn } from '../../domain/notifications/users';
import type { Company, EnrichmentScope } from '../../domain/auth/sessionContext';

export interface TestSessionOptions {
  email: string;
  name?: string;
  company?: Company | null;
  groups?: string[];
  /** The `enrichment_scope` claim; null = no claim. Default full. */
  enrichmentScope?: EnrichmentScope | null;
  /** Flags set outright, over those the configured lists give the email (e.g. the central API path). */
  flags?: Partial<SessionFlags>;
  db?: pg.Pool;
}

export interface TestSession {
  /** `cgp_session=<token>`, ready for a Cookie header. */
  cookie: string;
  sessionId: string;
  data: StoredSession;
  /** Deletes the session row. */
  end(): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function createTestSessionRecord(opts: TestSessionOptions): Promise<TestSession> {
  const email = opts.email.toLowerCase();
  const groups = opts.groups ?? [];
  const data: StoredSession = {
    v: 1,
    user: {
      id: `test-${randomUUID()}`,
      email,
      name: opts.name ?? email.split('@')[0],
      company: opts.company === undefined ? 'B' : opts.company,
    },
    groups,
    enrichmentScope: opts.enrichmentScope === undefined ? 'full' : opts.enrichmentScope,
    emailVerified: true,
    flags: { ...evaluateFlags({ email, groups, emailVerified: true }, config.flags), ...opts.flags },
    // No refresh token and a refresh moment a day away: the middleware never calls the IdP.
    tokens: { accessToken: 'test-access-token', accessTokenExpiresAt: Date.now() + DAY_MS, refreshAt: Date.now() + DAY_MS },
  };
  const token = newSessionToken();
  const sessionId = sessionIdFor(token);
  const db = opts.db ?? getPool();
  await createSession(db, sessionId, data);
  await recordSignIn(db, { ...data.user, isAdmin: data.flags.isAdmin });
  return {
    cookie: `${SESSION_COOKIE}=${token}`,
    sessionId,
    data,
    end: async () => {
      await deleteSession(db, sessionId);
    },
  };
}

/** The Cookie header of a fresh session for this user. */
export async function createTestSession(opts: TestSessionOptions): Promise<string> {
  return (await createTestSessionRecord(opts)).cookie;
}
