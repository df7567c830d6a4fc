/**
 * The repository's files as a fresh clone would have them plus the ones not committed yet (git
 * tracks them, or would: untracked and not ignored), under `paths` (all when none), each still on
 * disk: what the tree-scanning checks read (self-contained, table owners, application services).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../domain/config';

export function projectFiles(...paths: string[]): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', ...paths], { cwd: projectRoot, encoding: 'utf8' });
  return out.split('\0').filter((f) => f && fs.existsSync(path.join(projectRoot, f)));
}
