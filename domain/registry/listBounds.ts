/**
 * The bounds of the registry list's filters, one definition for both doors: the query schema of
 * GET /api/registratura/entries (api/routes/registratura.ts `ListQuery`, which refuses a value
 * outside them with a 400) and the /registratura page's loader (web/app/lib/registry.server.ts,
 * which drops such a value). Plain constants, no package: page code may only import pure modules
 * (test/unit/application-services.test.ts), so the zod schema itself stays in the API.
 */
export const REGISTRY_LIST_BOUNDS = {
  /** The registry's numbering years. */
  yearMin: 1990,
  yearMax: 2100,
  /** Characters of the search text. */
  searchMaxChars: 200,
  /** No real page lies past it; unbounded, `page=1e300` reached PostgreSQL as an OFFSET beyond bigint (a 500). */
  pageMax: 100_000,
  pageSizeMax: 200,
} as const;
