/**
 * `npm run bench`: starts a stack of its own (STACK_PROFILE=bench: ports +200, data in
 * .data/bench, the land-registry simulator at `bench` scale unless LANDREG_SIM_SCALE says
 * otherwise), runs every benchmark in scripts/bench/ one after another and prints their JSON
 * lines on stdout, side by side with the reference tool each one names. Stack logs go to
 * .data/bench-stack.log. `npm run bench -- <name>` runs only the benchmarks whose file name
 * contains <name> (and the ones of ON_REQUEST only that way).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { projectRoot } from '../domain/config';

const filter = process.argv.slice(2);
/**
 * Benchmarks a plain `npm run bench` leaves out, run only when named: the country slice (`scale`)
 * takes about 40 minutes and empties the bench store's features; `scale-out` loads a county beside
 * a streaming replica.
 */
const ON_REQUEST = new Set(['97-scale.ts', '98-scale-out.ts']);
// The bench stack runs on development secrets: its profile is named, since an unset NODE_ENV is
// production for the secret check (domain/config.ts isProductionEnv).
const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV || 'development',
  STACK_PROFILE: 'bench',
  LANDREG_SIM_SCALE: process.env.LANDREG_SIM_SCALE ?? 'bench',
  // The OGC bench walks a whole UAT through one personal token as fast as the server answers: the
  // per-token cap (60 a minute by default) would stop it with 429 half way.
  TOKEN_RATE_LIMIT_PER_MINUTE: process.env.TOKEN_RATE_LIMIT_PER_MINUTE ?? '100000',
};
const tsx = path.join(projectRoot, 'node_modules/.bin/tsx');
const benchDir = path.join(projectRoot, 'scripts/bench');
const readyFile = path.join(projectRoot, '.data/bench-stack.ready');
const logFile = path.join(projectRoot, '.data/bench-stack.log');
const lockFile = path.join(projectRoot, '.data/bench.lock');

/**
 * One benchmark run at a time: a second run would reuse the first one's stack (same ports) and
 * lose it when the first one stops, and two runs would skew each other's timings anyway.
 */
function takeLock(): void {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  try {
    const holder = Number(fs.readFileSync(lockFile, 'utf8'));
    if (holder && holder !== process.pid) {
      try {
        process.kill(holder, 0);
        throw new Error(`another benchmark run (pid ${holder}) is in progress; wait for it to finish`);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.writeFileSync(lockFile, String(process.pid));
  process.on('exit', () => fs.rmSync(lockFile, { force: true }));
}

function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(tsx, [file], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const benches = fs
    .readdirSync(benchDir)
    .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
    .filter((f) => (filter.length === 0 ? !ON_REQUEST.has(f) : filter.some((w) => f.includes(w))))
    .sort();
  takeLock();
  fs.rmSync(readyFile, { force: true });
  const log = fs.openSync(logFile, 'w');
  const stack = spawn(tsx, [path.join(projectRoot, 'scripts/stack.ts'), '--ready-file', readyFile], {
    env,
    stdio: ['ignore', log, log],
  });
  const stackExited = new Promise<void>((r) => stack.on('exit', () => r()));
  let failed = 0;
  try {
    const deadline = Date.now() + 10 * 60_000;
    while (!fs.existsSync(readyFile)) {
      if (stack.exitCode !== null || Date.now() > deadline) throw new Error(`the bench stack did not start; see ${logFile}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    for (const f of benches) {
      const code = await run(path.join(benchDir, f));
      if (code !== 0) {
        failed++;
        console.log(JSON.stringify({ bench: f.replace(/\.ts$/, ''), error: `exited with code ${code}` }));
      }
    }
  } finally {
    stack.kill('SIGTERM');
    await stackExited;
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
