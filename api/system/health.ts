/**
 * The infrastructure probes behind GET /api/health (api/routes/system.ts) and the home page's
 * health line (web/app/lib/health.server.ts, without an HTTP hop): one place for both.
 */
import { getPool } from '../../domain/db/pool';
import { probe, type ProbeResult } from '../../domain/health';
import { mailTransport } from '../../domain/mail/transport';
import { checkBuckets } from '../../domain/storage/s3';
import { checkTemporal } from '../../temporal/client';

interface InfrastructureHealth {
  ok: boolean;
  checkedAt: string;
  checks: Record<'database' | 'temporal' | 'storage' | 'mail', ProbeResult>;
}

export async function infrastructureHealth(): Promise<InfrastructureHealth> {
  const [database, temporal, storage, mail] = await Promise.all([
    probe(async () => {
      const r = await getPool().query<{ v: string }>(`SELECT postgis_lib_version() AS v`);
      return `PostGIS ${r.rows[0].v}`;
    }),
    probe(checkTemporal),
    probe(checkBuckets),
    probe(async () => {
      await mailTransport().verify();
      return 'SMTP';
    }),
  ]);
  const checks = { database, temporal, storage, mail };
  return { ok: Object.values(checks).every((c) => c.ok), checkedAt: new Date().toISOString(), checks };
}
