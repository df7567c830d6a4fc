/**
 * A page request past its caller's per-user request limit, as the page door marks it
 * (api/http/rateLimit.ts pageRateLimit) and every loader and action receives it
 * (`context.refused`, refused in requireSession before any work).
 */
export interface PageRefusal {
  retryAfterSeconds: number;
}
