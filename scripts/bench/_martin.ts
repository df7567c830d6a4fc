/**
 * Martin, the reference tile server of the tiles bench (issue 31): the binary, built once into
 * the tools cache when the bench needs it, and one server over the bench database with its cache
 * off, serving the same views our /tiles route reads, configured from our source records.
 *
 *   martinBinary()          MARTIN_BIN, else <tools>/martin-<version>/bin/martin, built with
 *                           `cargo install` when missing (never by npm start or npm test)
 *   startMartin(sources)    a Martin on a free loopback port; stop() ends it
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { config } from '../../domain/config';
import { DETAIL_MINZOOM } from '../../domain/tiles/rules';
import type { TileSourceRecord } from '../../domain/tiles/service';
import { freeLoopbackPort } from '../../domain/net/loopback';

export const MARTIN_VERSION = '1.14.0';

function run(cmd: string, args: string[], log: (msg: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    log(`${cmd} ${args.join(' ')}`);
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with code ${code}`))));
  });
}

const exists = (p: string) => fs.access(p).then(() => true, () => false);

/** The Martin binary; built once (cargo, postgres and pmtiles features only) when missing. */
export async function martinBinary(log: (msg: string) => void): Promise<string> {
  if (process.env.MARTIN_BIN) return process.env.MARTIN_BIN;
  const root = path.join(config.toolsDir, `martin-${MARTIN_VERSION}`);
  const bin = path.join(root, 'bin', 'martin');
  if (await exists(bin)) return bin;
  log(`building Martin ${MARTIN_VERSION} into ${root} (once; this takes a while)`);
  await run(
    'cargo',
    // A target dir of its own (kept): a build interrupted on a busy machine resumes where it stopped.
    ['install', 'martin', '--version', MARTIN_VERSION, '--locked', '--no-default-features', '--features', 'postgres,pmtiles', '--root', root, '--target-dir', `${root}-build`],
    log,
  );
  return bin;
}

/**
 * Martin's table source for one of ours: the same view, zoom range and z16+ attributes, object_id
 * as the feature id (Martin does not repeat it as a property), extent and buffer as ours.
 */
function martinTable(s: TileSourceRecord): Record<string, unknown> {
  const [schema, table] = s.relation.split('.');
  const props = s.fields.filter((f) => (f.minzoom ?? 0) <= DETAIL_MINZOOM && f.name !== 'object_id');
  return {
    schema,
    table,
    srid: 3857,
    geometry_column: 'geom',
    geometry_type: 'GEOMETRY',
    ...(s.featureId ? { id_column: 'object_id' } : {}),
    minzoom: s.minzoom,
    maxzoom: s.maxzoom,
    extent: 4096,
    buffer: 64,
    clip_geom: true,
    properties: Object.fromEntries(props.map((f) => [f.name, f.type])),
  };
}

export interface RunningMartin {
  base: string;
  /** Its process (the bench reads its CPU time). */
  pid: number;
  stop(): Promise<void>;
}

/** A Martin serving these sources from the bench database, cache off, on a free loopback port. */
export async function startMartin(bin: string, sources: readonly TileSourceRecord[], log: (msg: string) => void): Promise<RunningMartin> {
  const port = await freeLoopbackPort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-martin-'));
  const file = path.join(dir, 'martin.json');
  // Martin reads YAML, of which JSON is a subset.
  const cfg = {
    listen_addresses: `127.0.0.1:${port}`,
    cache: 'disable',
    on_invalid: 'abort',
    postgres: {
      connection_string: config.db.url,
      auto_publish: false,
      auto_bounds: 'skip',
      tables: Object.fromEntries(sources.map((s) => [s.name, martinTable(s)])),
    },
  };
  await fs.writeFile(file, JSON.stringify(cfg, null, 2));
  const child: ChildProcess = spawn(bin, ['--config', file], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RUST_LOG: 'warn' } });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`martin exited with code ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`martin did not answer /health within 60 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  log(`martin ${MARTIN_VERSION} on ${base} (cache off), sources: ${sources.map((s) => s.name).join(', ')}`);
  return {
    base,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
