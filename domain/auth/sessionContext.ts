/**
 * What a signed-in request carries (spec 5.2, CONTRACT.md section 2): one definition for the API
 * (api/auth/, which attaches it to the request) and the pages' loaders.
 */
import type { EnrichmentScope } from './viewer';
export type { EnrichmentScope };

export type Company = 'B' | 'U' | 'S' | 'G';

/**
 * The session id of the development bypass's stub user (spec 5.1): no session row, no cookie, so
 * nothing to sign out of (the next request is the stub user again).
 */
export const DEV_BYPASS_SESSION_ID = 'dev-bypass';

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  company: Company | null;
}

export interface SessionContext {
  sessionId: string;
  user: SessionUser;
  accessToken: string;
  /** `enrichment_scope` claim; null when the claim is absent. */
  enrichmentScope: EnrichmentScope | null;
  useCentralApi: boolean;
  basicPanel: boolean;
  isAdmin: boolean;
  /** Set when a token refresh failed: the UI forces a new sign-in (spec 5.4). */
  error?: 'RefreshAccessTokenError';
}
