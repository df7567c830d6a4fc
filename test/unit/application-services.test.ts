/**
 * Issue 28 (1): a page and its API route reach data through one function of the owning area's
 * application service (docs/architecture.md "Application services"). Web code (web/app/) imports
 * values from outside web/ only
 *   - from an application service: an area's `domain/<area>/service.ts`, the infrastructure
 *     probes `domain/health.ts`, or the client side's job starts and readers `temporal/<name>.ts`
 *     (domain code cannot start a job); and every name it takes from one, some file under api/
 *     imports from that same module, so the Express handler and the loader call one function.
 *     PAGE_ONLY lists what a page shows that no route answers, each with its reason;
 *   - from a PURE module: rules and constants without I/O that browser code shares (each imports
 *     only PURE modules and no package, checked below);
 *   - or the settings, `domain/config.ts`, which both doors hand a service alike.
 * A query written in web code is caught by test/unit/table-owners.test.ts (web/app owns no table).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../domain/config';
import { projectFiles } from '../helpers/projectFiles';
import { inFiles } from '../../domain/db/owners';
import { fileExistsIn, valueImports } from '../helpers/valueImports';

const SERVICES = [/^domain\/[a-z]+\/service\.ts$/, /^domain\/health\.ts$/, /^temporal\/[A-Za-z]+\.ts$/];
const SETTINGS = 'domain/config.ts';
const PURE = [
  'domain/text/',
  'domain/errors.ts',
  'domain/auth/viewer.ts',
  'domain/auth/sessionContext.ts',
  'domain/geoportal/redact.ts',
  'domain/registry/access.ts',
  'domain/registry/numbers.ts',
  'domain/registry/statusNames.ts',
  'domain/landreg/counties.ts',
  'domain/dwg/names.ts',
  'domain/geo/mapColors.ts',
];
const PAGE_ONLY: ReadonlyArray<{ module: string; name: string; why: string }> = [
  { module: 'domain/notifications/service.ts', name: 'unread', why: "the bell's first count; the browser then polls GET /api/notifications/app, whose inbox() counts with it" },
  { module: 'domain/landreg/service.ts', name: 'uatOption', why: 'the heading of a page opened with ?siruta=; the UAT picker reads GET /api/landreg/uats' },
  { module: 'domain/landreg/service.ts', name: 'lastSyncChanges', why: "the UAT dashboard's card of the last finished sync per layer" },
  { module: 'domain/enrichment/service.ts', name: 'storedParcel', why: 'the parcel page (the map panel is GET /api/geoportal/feature, with geometry and attributes)' },
  { module: 'domain/enrichment/service.ts', name: 'canSearchOwners', why: "the viewer rule shown as the owner search's form; searchOwner applies it on both doors" },
  { module: 'domain/tags/service.ts', name: 'listProjects', why: "the assistant's project picker; POST /api/ai-chat resolves the chosen projectId under the same companies rule (domain/ai/context.ts)" },
  { module: 'domain/ogc/service.ts', name: 'uatsWithParcels', why: "Acces QGIS's UAT picker (the UATs the store draws); GET /api/qgis/project takes any UAT's siruta and answers 404 for one it does not hold" },
  { module: 'domain/ogc/service.ts', name: 'QGIS_AUTHCFG', why: 'the id the page tells the user to give the authentication entry; the project GET /api/qgis/project writes names the same (qgisProjectXml)' },
  { module: 'domain/office/service.ts', name: 'storageUsed', why: "the utilities page's usage line; the API reports the same figure in its 413 storage_quota_exceeded body" },
];

type Source = { file: string; text: string };
const exists = fileExistsIn(projectRoot);

function sources(folder: string): Source[] {
  return projectFiles(folder)
    .filter((f) => /\.tsx?$/.test(f))
    .map((file) => ({ file, text: fs.readFileSync(path.join(projectRoot, file), 'utf8') }));
}

/** Each web import that breaks the rule above, as `file:line name from module: why`. */
function offences(web: readonly Source[], api: readonly Source[]): string[] {
  const apiImports = new Set(api.flatMap((s) => valueImports(s.file, s.text, exists)).map((i) => `${i.module} ${i.name}`));
  const found: string[] = [];
  for (const s of web) {
    for (const i of valueImports(s.file, s.text, exists)) {
      if (i.module.startsWith('web/') || i.module === SETTINGS || inFiles(i.module, PURE)) continue;
      const at = `${s.file}:${i.line} ${i.name} from ${i.module}`;
      if (!SERVICES.some((r) => r.test(i.module))) found.push(`${at}: not an application service`);
      else if (i.name === '*') found.push(`${at}: a namespace import hides which entries it calls`);
      else if (!apiImports.has(`${i.module} ${i.name}`) && !PAGE_ONLY.some((p) => p.module === i.module && p.name === i.name)) {
        found.push(`${at}: no API route imports it from there`);
      }
    }
  }
  return found;
}

/** Package imports that are not type-only (a pure module takes none). */
const packageImports = (text: string) => [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^.'][^']*)'/gm)].map((m) => m[1]);

describe('application services: one function behind a page and its API route', () => {
  test('every value web code takes from outside web/ is an application-service entry the API imports too, a pure module or the settings', () => {
    expect(offences(sources('web/app'), sources('api'))).toEqual([]);
  });

  test('the pure modules import only pure modules and no package', () => {
    const pure = sources('domain').filter((s) => inFiles(s.file, PURE));
    expect(pure.length).toBeGreaterThanOrEqual(PURE.length);
    const impure = pure.flatMap((s) => [
      ...valueImports(s.file, s.text, exists).filter((i) => !inFiles(i.module, PURE)).map((i) => `${s.file}: ${i.module}`),
      ...packageImports(s.text).map((p) => `${s.file}: ${p}`),
    ]);
    expect(impure).toEqual([]);
  });

  test('every page-only entry is still taken by a page and by no API route', () => {
    const taken = (files: Source[]) => new Set(files.flatMap((s) => valueImports(s.file, s.text, exists)).map((i) => `${i.module} ${i.name}`));
    const web = taken(sources('web/app'));
    const api = taken(sources('api'));
    expect(PAGE_ONLY.map((p) => `${p.module} ${p.name}: ${web.has(`${p.module} ${p.name}`)} ${api.has(`${p.module} ${p.name}`)}`)).toEqual(
      PAGE_ONLY.map((p) => `${p.module} ${p.name}: true false`),
    );
  });

  test('the check catches a planted page that goes round the service, or calls an entry the API does not', () => {
    // The planted page's way up to the root, as its imports would spell it.
    const up = path.posix.relative('web/app/lib', '.');
    const page = {
      file: 'web/app/lib/planted.server.ts',
      text: `
        import type { EntryPage } from '${up}/domain/registry/entries';
        import { listEntries } from '${up}/domain/registry/entries';
        import { type RegistryEntry, getEntry, entryHistory } from '${up}/domain/registry/service';
        import * as registry from '${up}/domain/registry/service';
        import { foldName } from '${up}/domain/text/fold';
        import { config } from '${up}/domain/config';
        import { runningPortalJobs } from '${up}/temporal/jobs';
        import { enrichParcels } from '${up}/activities/enrichment';
        import { requireSession } from './auth.server';
        export { uatDashboard } from '${up}/domain/enrichment/dashboard';
        export { storedParcel } from '${up}/domain/enrichment/service';`,
    };
    const route = { file: 'api/routes/registratura.ts', text: `import { getEntry } from '../../domain/registry/service';\nimport { entryHistory } from '../../domain/registry/entries';` };
    expect(offences([page], [route])).toEqual([
      'web/app/lib/planted.server.ts:3 listEntries from domain/registry/entries.ts: not an application service',
      'web/app/lib/planted.server.ts:4 entryHistory from domain/registry/service.ts: no API route imports it from there',
      'web/app/lib/planted.server.ts:5 * from domain/registry/service.ts: a namespace import hides which entries it calls',
      'web/app/lib/planted.server.ts:8 runningPortalJobs from temporal/jobs.ts: no API route imports it from there',
      'web/app/lib/planted.server.ts:9 enrichParcels from activities/enrichment.ts: not an application service',
      'web/app/lib/planted.server.ts:11 uatDashboard from domain/enrichment/dashboard.ts: not an application service',
    ]);
    expect(packageImports(`import pg from 'pg';\nimport type { Pool } from 'pg';\nexport { x } from './y';`)).toEqual(['pg']);
  });
});
