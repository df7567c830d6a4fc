/**
 * Sign-in's pure rules, importable from anywhere (pages' browser code, other areas, workflows):
 * what a signed-in request carries, the viewer rule for personal data, the feature flags, the
 * owner-or-admin rule and the token limits. No I/O.
 */
export { DEV_BYPASS_SESSION_ID, type Company, type SessionContext, type SessionUser } from './sessionContext';
export {
  PERSONAL_ATTRIBUTE_KEYS,
  PERSONAL_ENRICHMENT_KEYS,
  hidesPersonalData,
  personalDataHidden,
  redactAttributes,
  redactEnrichment,
  redactRow,
  viewerOf,
  type EnrichmentScope,
  type Viewer,
} from './viewer';
export { devBypassEnabled, evaluateFlags, type SessionFlags } from './flags';
export { ownerOrAdmin, type Reader } from './ownership';

/** Personal access tokens' lifetime (CONTRACT.md section 6): default 90 days, at most 365. */
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 365;
/** At most this many live tokens per user: a token is a credential, not a cache key. */
export const MAX_TOKENS_PER_USER = 20;

/** CONTRACT.md section 2: idle timeout 12 h (api/auth/sessionStore.ts checks it on every request). */
export const SESSION_IDLE_TIMEOUT_SECONDS = 12 * 60 * 60;
