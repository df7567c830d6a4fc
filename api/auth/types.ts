/** What a signed-in request carries (spec 5.2, CONTRACT.md section 2). */
export type Company = 'B' | 'U' | 'S' | 'G';
import type { EnrichmentScope } from '../../domain/auth/viewer';
export type { EnrichmentScope };

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

declare module 'express-serve-static-core' {
  interface Request {
    auth?: SessionContext;
  }
}
