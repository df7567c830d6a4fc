/**
 * Temporary directories of builds and uploads: one name prefix (`geoportal-<kind>-`), so what a
 * killed process left behind (SIGKILL, out of memory: no `finally` ran) is recognised and removed
 * at the next start and every hour after (issue 13), without touching anything else in the temp
 * directory.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { config } from '../config';

export const TEMP_PREFIX = 'geoportal-';

/** A fresh `geoportal-<kind>-XXXXXX` directory under `root` (default config.exports.tmpDir). */
export function makeTempDir(kind: string, root: string = config.exports.tmpDir): Promise<string> {
  return fs.mkdtemp(path.join(root, `${TEMP_PREFIX}${kind}-`));
}

/**
 * Removes our temporary entries older than `maxAgeMs` (by modification time) from each root.
 * The age guard keeps the live directories of another process sharing the root (the web and the
 * workers use the same temp directory); a build never runs for that long.
 */
export async function sweepStaleTempDirs(
  roots: readonly string[] = [config.exports.tmpDir, config.uploads.tmpDir],
  maxAgeMs: number = config.exports.staleTempHours * 3_600_000,
  now = Date.now(),
): Promise<string[]> {
  const removed: string[] = [];
  for (const root of new Set(roots.map((r) => path.resolve(r)))) {
    let names: string[];
    try {
      names = await fs.readdir(root);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const full = path.join(root, name);
      try {
        const st = await fs.lstat(full);
        if (now - st.mtimeMs < maxAgeMs) continue;
        await fs.rm(full, { recursive: true, force: true });
        removed.push(full);
      } catch {
        // Gone meanwhile (its owner finished): nothing to do.
      }
    }
  }
  return removed;
}

/**
 * sweepStaleTempDirs now and then every `everyMs` (an hour), for as long as the process lives: a
 * process that runs for months would otherwise sweep only what was there when it started (what a
 * killed sibling, or a step that could not clean up, leaves later). `onRemoved` hears of what a
 * sweep removed; the answer stops it.
 */
export function keepSweepingTempDirs(onRemoved: (removed: string[]) => void, opts: { everyMs?: number; roots?: readonly string[] } = {}): () => void {
  const sweep = () => void sweepStaleTempDirs(opts.roots).then((removed) => removed.length && onRemoved(removed), () => undefined);
  sweep();
  const timer = setInterval(sweep, opts.everyMs ?? 3_600_000);
  timer.unref();
  return () => clearInterval(timer);
}
