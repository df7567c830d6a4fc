/**
 * Demo seed: `npx tsx scripts/seed-demo.ts` once the stack (workers included) is up. Idempotent
 * and quick when done: with no UATs in the store the catalogue is refreshed (then the weekend
 * queue's default cities are added, once); with no features,
 * two small UATs (the smallest of SEED_DEMO_WORKSPACE, default Covasna, or SEED_DEMO_SIRUTAS)
 * are synced (the smallest in magic mode, enriched) through the real workflows, and the script waits for them.
 */
import { config } from '../domain/config';
import { closePool, getPool } from '../domain/db/pool';
import { processStore } from '../domain/db/store';
import { DEFAULT_SYNC_LAYERS } from '../domain/landreg/rules';
import { processServices } from '../temporal/services';
import { childLogger } from '../domain/log';
import { closeTemporalClient } from '../temporal/client';
import { start } from '../temporal/jobs';

const log = childLogger('seed-demo');
const DEMO_UATS = 2;
// Nothing here mails: the seed only reads the portal and fills the catalogue and the weekend queue.
const services = processServices(processStore(), { mail: null });

async function count(sql: string): Promise<number> {
  const r = await getPool().query<{ n: number }>(sql);
  return r.rows[0].n;
}

async function refreshCatalogue(): Promise<void> {
  const { handle } = await start('uat-catalog-refresh', {}, { existing: 'accept' });
  const result = await handle.result();
  log.info({ result }, 'UAT catalogue refreshed');
}

/** The two smallest UATs of the demo county that hold parcels (asked of the portal, counts only). */
async function demoSirutas(): Promise<number[]> {
  if (config.landreg.demoSeedSirutas.length) return config.landreg.demoSeedSirutas.map(Number).filter(Number.isInteger);
  const r = await getPool().query<{ siruta: number }>(`SELECT siruta FROM gis_uats WHERE workspace_pk = $1 ORDER BY siruta`, [config.landreg.demoSeedWorkspace]);
  const sized: Array<{ siruta: number; n: number }> = [];
  for (const { siruta } of r.rows) {
    const n = await services.landreg.portalCount('TERENURI_ACTIVE', siruta);
    if (n > 0) sized.push({ siruta, n });
  }
  return sized.sort((a, b) => a.n - b.n).slice(0, DEMO_UATS).map((x) => x.siruta);
}

async function main(): Promise<void> {
  const started = Date.now();
  if ((await count(`SELECT count(*)::int AS n FROM gis_uats`)) === 0) await refreshCatalogue();
  // The weekend queue's default cities (configuration, added once; docs/scheduling.md).
  const seeded = await services.scheduling.seedWeekendQueue(config.scheduling.weekendDefaultCities);
  if (seeded.added > 0) log.info({ added: seeded.added }, 'weekend queue seeded');
  // UAT boundaries let the map show the counties and search fly to a UAT (the PATCH of spec 4.4:
  // the demo counties' boundaries come from the LIMITE_UAT layer, others one by one in a budget).
  if ((await count(`SELECT count(*)::int AS n FROM gis_uats WHERE geom IS NOT NULL`)) === 0) {
    const patched = await services.landreg.patchUatCatalogue();
    log.info({ geometry: patched.geometry }, 'UAT boundaries stored');
  }
  if ((await count(`SELECT count(*)::int AS n FROM gis_features`)) === 0) {
    const sirutas = await demoSirutas();
    const jobs = await Promise.all(
      // The smallest UAT is synced in magic mode, so owners, addresses and the dashboard have
      // data to show from the first start; the other in base mode.
      sirutas.map((siruta, i) => start('sync-background', { siruta, layers: [...DEFAULT_SYNC_LAYERS], mode: i === 0 ? 'magic' : 'base', trigger: 'manual' }, { portalStarts: services.landreg.portalStarts })),
    );
    const results = await Promise.all(jobs.map((j) => j.handle.result()));
    log.info({ uats: results.map((r) => ({ siruta: r.siruta, added: r.added })) }, 'demo UATs synced');
  }
  log.info({ ms: Date.now() - started }, 'demo seed done');
}

main()
  .catch((err) => {
    log.error({ err }, 'demo seed failed');
    process.exitCode = 1;
  })
  .finally(async () => {
    await Promise.allSettled([closeTemporalClient(), closePool()]);
  });
