/**
 * Writing the tag file safely (CONTRACT.md section 3): a versioned backup `<file>.<timestamp>.bak`
 * before every write, the newest 20 kept, and the write itself atomic (a temporary file in the
 * same directory, flushed, then renamed over the old one), so a crash at any moment leaves either
 * the old file or the new one, whole.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** CONTRACT.md section 3: the newest 20 backups are kept. */
export const TAG_BACKUPS_KEPT = 20;

export async function readTagFileBytes(file: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Sortable, file-name-safe UTC time with milliseconds: 20260315T101502123Z. */
export function backupTimestamp(at: Date): string {
  return at.toISOString().replace(/[-:.]/g, '');
}

const backupPattern = (base: string) => new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d{8}T\\d{9}Z)(?:-(\\d+))?\\.bak$`);

export async function listBackups(file: string): Promise<string[]> {
  const dir = path.dirname(file);
  const re = backupPattern(path.basename(file));
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => re.test(n));
  const order = (n: string) => {
    const m = re.exec(n)!;
    return `${m[1]}-${(m[2] ?? '0').padStart(6, '0')}`;
  };
  return names.sort((a, b) => order(a).localeCompare(order(b))).map((n) => path.join(dir, n));
}

/** Copies the current file to a new backup (none when there is no file yet) and drops the oldest beyond 20. */
export async function backupTagFile(file: string, at = new Date()): Promise<string | null> {
  const current = await readTagFileBytes(file);
  if (current === null) return null;
  const stamp = backupTimestamp(at);
  let target = `${file}.${stamp}.bak`;
  for (let n = 1; ; n++) {
    try {
      await fs.writeFile(target, current, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      target = `${file}.${stamp}-${n}.bak`;
    }
  }
  const backups = await listBackups(file);
  for (const old of backups.slice(0, Math.max(0, backups.length - TAG_BACKUPS_KEPT))) await fs.rm(old, { force: true });
  return target;
}

export interface AtomicWriteHooks {
  /** Runs after the temporary file is complete and before the rename (tests simulate a crash here). */
  beforeRename?: (tmp: string) => void | Promise<void>;
}

export async function writeFileAtomic(file: string, data: Buffer, hooks: AtomicWriteHooks = {}): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await fs.open(tmp, 'wx', 0o644);
  try {
    // A failed write (a full disk) leaves no temporary file behind either.
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await hooks.beforeRename?.(tmp);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  // The rename is durable once the directory entry is: flush it where the platform allows.
  const d = await fs.open(dir, 'r').catch(() => null);
  if (d) {
    await d.sync().catch(() => undefined);
    await d.close();
  }
}
