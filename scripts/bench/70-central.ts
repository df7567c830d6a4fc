/**
 * Central API proxy overhead (issue 16 item 7; `npm run bench -- central`, or alone against a
 * running stack: `npx tsx scripts/bench/70-central.ts [--samples N]`). Three users sign in through
 * the stack's identity provider (the real form); then, in one run and interleaved pair by pair so
 * drift hits both sides alike, the same call goes straight to the central API simulator with his
 * access token and through the service (`/api/gis/search?q=`, `/api/gis/parcela/<id>`).
 * Overhead = percentile through the service − the same percentile direct. Goal: p95 < 5 ms.
 * The session's token refreshes during the run when it expires (a minute in development), as it
 * would for a person; such samples stay in.
 */
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { Browser } from '../../test/helpers/oidcBrowser';
import { jsonLine, note, percentiles } from './_shared';

const BENCH = 'central';
const emit = (metric: string, value: number | string | boolean, unit: string) => jsonLine(BENCH, metric, value, unit);
const say = (msg: string) => note(BENCH, msg);

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
const SAMPLES = arg('samples', 400);
const WARMUP = 30;

interface Truth {
  uats: Array<{ siruta: number }>;
}
interface Feature {
  id: string;
  layerId: string;
  siruta: number;
  cadastralRef: string;
}

/** The current access token of this browser's session (the service may have refreshed it). */
async function accessToken(b: Browser): Promise<{ token: string; expiresAt: number }> {
  const r = await getPool().query<{ data: { tokens: { accessToken: string; accessTokenExpiresAt: number } } }>(`SELECT data FROM app_sessions WHERE id = $1`, [
    await b.sessionId(),
  ]);
  const t = r.rows[0].data.tokens;
  return { token: t.accessToken, expiresAt: t.accessTokenExpiresAt };
}

async function timed(fn: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await fn();
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`answer ${res.status}`);
  return ms;
}

async function main(): Promise<void> {
  const app = config.app.publicUrl;
  const sim = config.central.baseUrl;
  // Three full-scope users in turn: the service allows 600 requests a minute per user
  // (CONTRACT.md section 5), and one run makes about a thousand.
  const users = await Promise.all(
    ['mihai', 'dan', 'ana'].map(async (u) => {
      const b = new Browser(app);
      await b.signIn(`${u}@birou.ro`, `parola-${u}`);
      return { b, tok: await accessToken(b) };
    }),
  );
  const truth = (await (await fetch(`${sim}/__sim/truth`)).json()) as Truth;
  const siruta = truth.uats[0].siruta;
  const features = ((await (await fetch(`${sim}/__sim/truth?siruta=${siruta}`)).json()) as { features: Feature[] }).features;
  const parcel = features.find((f) => f.layerId === 'TERENURI_ACTIVE' && f.cadastralRef !== '1000')!;
  say(`UAT ${siruta}, parcel ${parcel.cadastralRef} (${parcel.id}), ${SAMPLES} samples per side and route`);

  let turn = 0;
  const direct = async (path: string) => {
    const u = users[turn % users.length];
    // The service refreshes the token in the session; the direct side reads the current one.
    if (u.tok.expiresAt - Date.now() < 15_000) u.tok = await accessToken(u.b);
    return fetch(`${sim}/api/v1${path}`, { headers: { authorization: `Bearer ${u.tok.token}`, accept: 'application/json' } });
  };
  const proxied = (path: string) => users[turn++ % users.length].b.request(`${app}/api/gis${path}`, { headers: { accept: 'application/json' } });

  for (const [name, path] of [
    ['search', `/search?q=${encodeURIComponent(parcel.cadastralRef)}`],
    ['parcela', `/parcela/${parcel.id}`],
  ] as const) {
    for (let i = 0; i < WARMUP; i++) {
      await timed(() => proxied(path));
      await timed(() => direct(path));
    }
    const d: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      // Alternate which goes first, so neither side always meets a warm connection.
      if (i % 2) {
        d.push(await timed(() => direct(path)));
        p.push(await timed(() => proxied(path)));
      } else {
        p.push(await timed(() => proxied(path)));
        d.push(await timed(() => direct(path)));
      }
    }
    const pd = percentiles(d);
    const pp = percentiles(p);
    emit(`${name}_direct_p50`, pd.p50, 'ms');
    emit(`${name}_direct_p95`, pd.p95, 'ms');
    emit(`${name}_proxy_p50`, pp.p50, 'ms');
    emit(`${name}_proxy_p95`, pp.p95, 'ms');
    emit(`${name}_overhead_p50`, pp.p50 - pd.p50, 'ms');
    emit(`${name}_overhead_p95`, pp.p95 - pd.p95, 'ms');
    emit(`${name}_overhead_p95_goal_met`, pp.p95 - pd.p95 < 5, 'bool (goal < 5 ms)');
  }
}

main()
  .catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = 1;
  })
  .finally(() => closePool());
