/**
 * Live checks of the infrastructure the service stands on, shown on the home page's health line
 * (web/app/lib/health.server.ts, without an HTTP hop), answered by GET /api/health and used by the
 * stack launcher. Each probe is bounded by a timeout so a dead dependency shows as red instead of
 * hanging the page.
 */
import type { Db } from './db/pool';
import { mailTransport } from './mail/transport';
import { checkBuckets } from './storage/s3';

export interface ProbeResult {
  ok: boolean;
  ms: number;
  detail?: string;
}

export async function probe(fn: () => Promise<string | void>, timeoutMs = 3000): Promise<ProbeResult> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, ms: Date.now() - started, ...(detail ? { detail } : {}) };
  } catch (err) {
    return { ok: false, ms: Date.now() - started, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

export interface InfrastructureHealth {
  ok: boolean;
  checkedAt: string;
  checks: Record<'database' | 'temporal' | 'storage' | 'mail', ProbeResult>;
}

/** `db`: the caller's store's pool; `checkTemporal` is temporal/client.ts's, passed in: this layer does not import the client. */
export async function infrastructureHealth(db: Db, checkTemporal: () => Promise<string>): Promise<InfrastructureHealth> {
  const [database, temporal, storage, mail] = await Promise.all([
    probe(async () => {
      const r = await db.query<{ v: string }>(`SELECT postgis_lib_version() AS v`);
      return `PostGIS ${r.rows[0].v}`;
    }),
    probe(() => checkTemporal()),
    probe(checkBuckets),
    probe(async () => {
      await mailTransport().verify();
      return 'SMTP';
    }),
  ]);
  const checks = { database, temporal, storage, mail };
  return { ok: Object.values(checks).every((c) => c.ok), checkedAt: new Date().toISOString(), checks };
}
