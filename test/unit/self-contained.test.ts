/**
 * A clone of the project alone must start and pass its tests (issue 12): no source, script,
 * test or build file may name a path above the repository root (the design folder beside a
 * developer's checkout, say). Docs may cite such material; code may not read it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../domain/config';
import { projectFiles } from '../helpers/projectFiles';

const CODE_FILE = /\.(ts|tsx|js|mjs|cjs|sh|py|json|ya?ml|sql|prisma)$|(^|\/)(bootstrap|run|Dockerfile|\.env\.example)$/;
// `../` runs followed by a name: `../x/data`, `../../x`, `..` alone at the end of a run.
const UP_PATH = /(?:^|[^\w.\-/])((?:\.\.\/)+(?:\.\.)?[\w.\-/]*)/g;

function trackedCodeFiles(): string[] {
  return projectFiles().filter((f) => CODE_FILE.test(f) && !f.startsWith('node_modules/') && f !== 'package-lock.json');
}

const inside = (p: string) => p === projectRoot || p.startsWith(projectRoot + path.sep);
const exists = (p: string) => ['', '.ts', '.tsx', '.js'].some((ext) => fs.existsSync(p + ext));

/** The paths in `text` (one file's content) that point above the repository root. */
export function escapingPaths(file: string, text: string): string[] {
  const dir = path.dirname(path.join(projectRoot, file));
  const found: string[] = [];
  for (const line of text.split('\n')) {
    for (const m of line.matchAll(UP_PATH)) {
      const ref = m[1];
      const fromFile = path.resolve(dir, ref);
      // A path is read against its file (imports, createRequire) or against the root (config
      // defaults: path.resolve(projectRoot, '../x')). Against the file it must stay inside; against
      // the root it may only leave when it names something that exists beside the file instead.
      const escapes = !inside(fromFile) || (!inside(path.resolve(projectRoot, ref)) && !exists(fromFile));
      if (escapes) found.push(ref);
    }
  }
  return found;
}

describe('the repository is self-contained', () => {
  test('no code, script or test file names a path above the repository root', () => {
    const offenders: string[] = [];
    for (const file of trackedCodeFiles().filter((f) => f !== 'test/unit/self-contained.test.ts')) {
      const text = fs.readFileSync(path.join(projectRoot, file), 'utf8');
      for (const ref of escapingPaths(file, text)) offenders.push(`${file}: ${ref}`);
    }
    expect(offenders).toEqual([]);
  });

  test('the check itself catches a path to the design folder beside the clone', () => {
    // Spelled from parts, so this file never names the design folder's path itself.
    const up = ['..', 'shared'].join('/');
    expect(escapingPaths('domain/config.ts', `const dir = str('LANDREG_SIM_DATA_DIR', '${up}/data');`)).toEqual([`${up}/data`]);
    expect(escapingPaths('scripts/x.sh', `cat ../${up}/spec/CONTRACT.md`)).toEqual([`../${up}/spec/CONTRACT.md`]);
    // simulators/shared/ is inside the repository: a simulator importing from it is fine.
    expect(escapingPaths('simulators/landreg/server.ts', `import { SimControl } from '${up}/control';`)).toEqual([]);
  });

  test('the reference data the simulators read ships inside the repository', () => {
    const dir = path.join(projectRoot, 'data', 'reference');
    expect(fs.existsSync(path.join(dir, 'siruta-2024.csv'))).toBe(true);
    expect(fs.readdirSync(path.join(dir, 'uat-boundaries')).filter((f) => f.endsWith('.geojson'))).toHaveLength(43);
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toMatch(/MPL-2\.0[\s\S]*OGL-ROU-1\.0/);
  });
});
