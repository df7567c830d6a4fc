/**
 * Issue 28 (1), issue 43 (1-2): a page and its API route reach an area through the same object, the
 * area's service, built once per process (domain/services.ts) and handed to both doors: the routers
 * by api/app.ts, the pages' loaders and actions through the load context (`context.services`,
 * api/web.ts). So web code (web/app/) imports values from outside web/ only
 *   - from a PURE module: an area's `rules.ts`, or a kernel module of rules and constants without
 *     I/O that browser code shares (each imports only pure modules and no package, checked below);
 *   - from the client side's job starts and readers `temporal/<name>.ts` (domain code cannot start
 *     a job) or the infrastructure probes `domain/health.ts`, as the API's routes do;
 *   - or the settings, `domain/config.ts`, which both doors hand a service alike.
 * Never a value of an area's `service.ts` (its types only): a function imported from there would be
 * a second way in beside the object the routes call. Other area internals are the door rule's
 * (.dependency-cruiser.cjs). A query written in web code is caught by test/unit/table-owners.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../domain/config';
import { projectFiles } from '../helpers/projectFiles';
import { inFiles } from '../../domain/db/owners';
import { fileExistsIn, valueImports } from '../helpers/valueImports';

const CLIENT_SIDE = [/^domain\/health\.ts$/, /^temporal\/[A-Za-z]+\.ts$/];
const SETTINGS = 'domain/config.ts';
const RULES = /^domain\/[a-z]+\/rules\.ts$/;
const PURE = ['domain/text/', 'domain/errors.ts', 'domain/areas.ts', 'domain/geo/mapColors.ts'];
const isPure = (file: string) => RULES.test(file) || inFiles(file, PURE);

type Source = { file: string; text: string };
const exists = fileExistsIn(projectRoot);

function sources(folder: string): Source[] {
  return projectFiles(folder)
    .filter((f) => /\.tsx?$/.test(f))
    .map((file) => ({ file, text: fs.readFileSync(path.join(projectRoot, file), 'utf8') }));
}

/** Each web import that breaks the rule above, as `file:line name from module: why`. */
function offences(web: readonly Source[]): string[] {
  const found: string[] = [];
  for (const s of web) {
    for (const i of valueImports(s.file, s.text, exists)) {
      if (i.module.startsWith('web/') || i.module === SETTINGS || isPure(i.module) || CLIENT_SIDE.some((r) => r.test(i.module))) continue;
      const at = `${s.file}:${i.line} ${i.name} from ${i.module}`;
      found.push(/^domain\/[a-z]+\/service\.ts$/.test(i.module) ? `${at}: a service is reached through the load context, not imported` : `${at}: not a pure module or the client side`);
    }
  }
  return found;
}

/** Package imports that are not type-only (a pure module takes none). */
const packageImports = (text: string) => [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^.'][^']*)'/gm)].map((m) => m[1]);

describe('application services: one object behind a page and its API route', () => {
  test('every value web code takes from outside web/ is a pure module, the client side or the settings; services come through the load context', () => {
    expect(offences(sources('web/app'))).toEqual([]);
  });

  test('the pure modules (every rules.ts, the kernel’s pure files and all they import) import no package', () => {
    const all = new Map(sources('domain').map((s) => [s.file, s]));
    const roots = [...all.keys()].filter(isPure);
    expect(roots.length).toBeGreaterThanOrEqual(PURE.length);
    // Everything a pure module imports is held to the same rule: a rules.ts re-exports its area's pure parts.
    const reached = new Set<string>(roots);
    const queue = [...roots];
    const outsideDomain: string[] = [];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      for (const i of valueImports(file, all.get(file)!.text, exists)) {
        if (!all.has(i.module)) outsideDomain.push(`${file}: ${i.module}`);
        else if (!reached.has(i.module)) {
          reached.add(i.module);
          queue.push(i.module);
        }
      }
    }
    expect(outsideDomain).toEqual([]);
    expect([...reached].sort().flatMap((f) => packageImports(all.get(f)!.text).map((p) => `${f}: ${p}`))).toEqual([]);
  });

  test('the check catches a planted page that imports a service’s function or an area’s part', () => {
    // The planted page's way up to the root, as its imports would spell it.
    const up = path.posix.relative('web/app/lib', '.');
    const page = {
      file: 'web/app/lib/planted.server.ts',
      text: `
        import type { EntryPage } from '${up}/domain/registry/entries';
        import { listEntries } from '${up}/domain/registry/entries';
        import { type RegistryService, createRegistryService } from '${up}/domain/registry/service';
        import * as registry from '${up}/domain/registry/service';
        import { foldName } from '${up}/domain/text/fold';
        import { COMPANIES } from '${up}/domain/registry/rules';
        import { config } from '${up}/domain/config';
        import { runningPortalJobs } from '${up}/temporal/jobs';
        import { enrichParcels } from '${up}/activities/enrichment';
        import { requireSession } from './auth.server';
        export { uatDashboard } from '${up}/domain/enrichment/dashboard';`,
    };
    expect(offences([page])).toEqual([
      'web/app/lib/planted.server.ts:3 listEntries from domain/registry/entries.ts: not a pure module or the client side',
      'web/app/lib/planted.server.ts:4 createRegistryService from domain/registry/service.ts: a service is reached through the load context, not imported',
      'web/app/lib/planted.server.ts:5 * from domain/registry/service.ts: a service is reached through the load context, not imported',
      'web/app/lib/planted.server.ts:10 enrichParcels from activities/enrichment.ts: not a pure module or the client side',
      'web/app/lib/planted.server.ts:12 uatDashboard from domain/enrichment/dashboard.ts: not a pure module or the client side',
    ]);
    expect(packageImports(`import pg from 'pg';\nimport type { Pool } from 'pg';\nexport { x } from './y';`)).toEqual(['pg']);
  });
});
