/**
 * Shape of GET /api/health (api/routes/system.ts) and the four indicators of the home page's
 * health line. Shared by the server loader and the browser refresh.
 */
export interface HealthProbe {
  ok: boolean;
  ms: number;
  detail?: string;
  /** Since when the check is in its present state (ISO time). */
  since?: string;
}

export type HealthCheckKey = 'database' | 'temporal' | 'storage' | 'mail' | 'portal' | 'backup';

export interface HealthReport {
  ok: boolean;
  checkedAt: string;
  checks: Record<HealthCheckKey, HealthProbe>;
}

export const HEALTH_CHECKS: readonly { key: HealthCheckKey; label: string }[] = [
  { key: 'database', label: 'Bază de date' },
  { key: 'temporal', label: 'Temporal' },
  { key: 'storage', label: 'Stocare obiecte' },
  { key: 'mail', label: 'E-mail' },
  { key: 'portal', label: 'Portal cadastru' },
  { key: 'backup', label: 'Copii de siguranță' },
];

/** How often the home page asks /api/health again. */
export const HEALTH_REFRESH_MS = 15_000;

export function isHealthReport(v: unknown): v is HealthReport {
  if (!v || typeof v !== 'object') return false;
  const checks = (v as { checks?: unknown }).checks;
  if (!checks || typeof checks !== 'object') return false;
  return HEALTH_CHECKS.every(({ key }) => {
    const p = (checks as Record<string, unknown>)[key];
    return !!p && typeof p === 'object' && typeof (p as HealthProbe).ok === 'boolean';
  });
}
