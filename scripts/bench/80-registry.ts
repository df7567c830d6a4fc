/**
 * Registry numbering bench (issue 17 item 7; `npm run bench -- registry`, or alone against a
 * running stack: `npx tsx scripts/bench/80-registry.ts`). Prints JSON lines {"bench":"registry"}.
 *
 * 500 creates (`POST /api/registratura/entries`) from 50 concurrent clients for ONE company and
 * year (S, 2090: the worst case, every create queues on the same advisory lock), through HTTP
 * with a real session: creates per second, latency p50/p95/p99, and the check that the 500
 * numbers are distinct and consecutive (S-2090-00001 … S-2090-00500). A warm-up of 100 creates
 * (another year, not measured) comes first.
 * Reference beside it: the same 500 allocations in plain SQL on pg (BEGIN; advisory lock;
 * max(sequence)+1; INSERT; counter; COMMIT) from 50 concurrent connections, i.e. the floor the
 * database itself sets for serialised numbering. Goal: at least 200 creates/s.
 */
import { config } from '../../domain/config';
import { closePool, createPool, getPool } from '../../domain/db/pool';
import { createTestSessionRecord } from '../../test/helpers/session';
import { jsonLine, note, percentiles } from './_shared';

const BENCH = 'registry';
const COMPANY = 'S';
const YEAR = 2090;
const REF_YEAR = 2091;
const WARM_YEAR = 2092;
const WARM_UP = 100;
const TOTAL = 500;
const CLIENTS = 50;
const GOAL_PER_SECOND = 200;
const say = (m: string) => note(BENCH, m);

async function clear(year: number): Promise<void> {
  await getPool().query(`DELETE FROM registry_entries WHERE company = $1 AND year = $2`, [COMPANY, year]);
  await getPool().query(`DELETE FROM registry_counters WHERE company = $1 AND year = $2`, [COMPANY, year]);
  await getPool().query(`DELETE FROM registry_entry_history WHERE company = $1 AND number LIKE $2`, [COMPANY, `${COMPANY}-${year}-%`]);
}

async function checkNumbers(year: number): Promise<boolean> {
  const r = await getPool().query<{ number: string }>(`SELECT number FROM registry_entries WHERE company = $1 AND year = $2 ORDER BY number`, [COMPANY, year]);
  const expected = Array.from({ length: TOTAL }, (_, i) => `${COMPANY}-${year}-${String(i + 1).padStart(5, '0')}`);
  return r.rows.length === TOTAL && r.rows.every((row, i) => row.number === expected[i]);
}

async function viaApi(): Promise<void> {
  await clear(YEAR);
  await clear(WARM_YEAR);
  const session = await createTestSessionRecord({ email: 'bench-registry@birou.ro', name: 'Bench', company: COMPANY });
  const url = `http://127.0.0.1:${config.app.port}/api/registratura/entries`;
  let latencies: number[] = [];
  let failures = 0;
  const createAll = async (year: number, total: number) => {
    let next = 0;
    const client = async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          headers: { cookie: session.cookie, origin: new URL(url).origin, 'content-type': 'application/json' },
          body: JSON.stringify({ direction: i % 2 ? 'iesire' : 'intrare', date: `${year}-06-15`, subject: `Adresă de bench ${i}`, sender: 'Ionescu Ștefan' }),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== 201) failures++;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
  };
  // Warm-up, not measured: the first requests pay for connection set-up, statement preparation
  // and JIT; the reference below likewise connects before it starts timing.
  await createAll(WARM_YEAR, WARM_UP);
  await clear(WARM_YEAR);
  latencies = [];
  failures = 0;
  say(`${TOTAL} creates from ${CLIENTS} clients for ${COMPANY}/${YEAR}…`);
  const t0 = performance.now();
  await createAll(YEAR, TOTAL);
  const seconds = (performance.now() - t0) / 1000;
  const p = percentiles(latencies);
  const ok = failures === 0 && (await checkNumbers(YEAR));
  jsonLine(BENCH, 'api_creates_per_second', TOTAL / seconds, 'creates/s');
  jsonLine(BENCH, 'api_latency_p50', p.p50, 'ms');
  jsonLine(BENCH, 'api_latency_p95', p.p95, 'ms');
  jsonLine(BENCH, 'api_latency_p99', p.p99, 'ms');
  jsonLine(BENCH, 'api_failures', failures, 'requests');
  jsonLine(BENCH, 'numbers_distinct_and_consecutive', ok, 'bool');
  jsonLine(BENCH, 'goal_creates_per_second_met', TOTAL / seconds >= GOAL_PER_SECOND, `>= ${GOAL_PER_SECOND}`);
  await session.end();
  await clear(YEAR);
}

async function reference(): Promise<void> {
  await clear(REF_YEAR);
  const pool = createPool(config.db.url, CLIENTS);
  // Connected before timing starts, as the API's connections are warm after its warm-up.
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => pool.connect()));
  let next = 0;
  const worker = async (c: (typeof clients)[number]) => {
    try {
      while (next < TOTAL) {
        const i = next++;
        await c.query('BEGIN');
        await c.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`registry-seq:${COMPANY}:${REF_YEAR}`]);
        const m = await c.query<{ s: number }>(`SELECT COALESCE(max(sequence), 0)::int + 1 AS s FROM registry_entries WHERE company = $1 AND year = $2`, [COMPANY, REF_YEAR]);
        const s = m.rows[0].s;
        await c.query(`INSERT INTO registry_entries (number, company, year, sequence, direction, date, subject) VALUES ($1, $2, $3, $4, 'intrare', $5, $6)`, [
          `${COMPANY}-${REF_YEAR}-${String(s).padStart(5, '0')}`, COMPANY, REF_YEAR, s, `${REF_YEAR}-06-15`, `Referință ${i}`,
        ]);
        await c.query(`INSERT INTO registry_counters (type, company, year, value) VALUES ('SEQ', $1, $2, $3) ON CONFLICT (type, company, year) DO UPDATE SET value = EXCLUDED.value`, [COMPANY, REF_YEAR, s]);
        await c.query('COMMIT');
      }
    } finally {
      c.release();
    }
  };
  const t0 = performance.now();
  await Promise.all(clients.map(worker));
  const seconds = (performance.now() - t0) / 1000;
  jsonLine(BENCH, 'reference_plain_sql_creates_per_second', TOTAL / seconds, 'creates/s');
  await pool.end();
  await clear(REF_YEAR);
}

await viaApi();
await reference();
await closePool();
