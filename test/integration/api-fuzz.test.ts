/**
 * Fuzzing in the suite (issue 13, deliverable 6): schemathesis (the virtualenv scripts/bootstrap
 * makes in the tools cache) runs property-based cases over the whole OpenAPI document, signed in
 * as an ordinary user (dan, no admin group), with a fixed seed, and only checks that no answer is a
 * 5xx: bad input must be a 400 with the CONTRACT.md body, never a server error.
 *
 * The rate limit is raised for this run only, without touching the product or the stack: the API
 * under test is an in-process app (createApp({ store }), the same routes, database, Temporal, object
 * storage and simulators as the running test stack) built in this jest process after
 * RATE_LIMIT_PER_MINUTE is set here; the stack's own limit and every other user keep 600/min.
 *
 * Operations left out (EXCLUDED below; also listed in docs/api.md, "API fuzz run"), because on
 * the shared test stack they would be destructive or start long portal-bound workflows:
 *   - POST /api/landreg/login, POST /api/landreg/session, POST /api/cfportal/session: replace or
 *     disconnect the shared portal accounts other tests use;
 *   - POST /api/landreg/uats, PATCH /api/landreg/uats, POST /api/landreg/sync, sync-background,
 *     sync-county, sync-all-counties, refresh-all, POST /api/landreg/weekend-sync,
 *     export-bundle, export-layer-gpkg: start portal-bound syncs/workflows that run for minutes
 *     and hold the per-UAT/job slots other tests wait for;
 *   - POST /api/cfportal/order: queues CF extract orders (spends portal credits);
 *   - POST /tiles/rebuild-webhook, POST /api/geoportal/tiles/rebuild: PMTiles archive builds;
 *   - POST /api/notifications/digest: sends the daily digest mail to every user;
 *   - POST /api/manictime: rewrites the shared tag file;
 *   - POST /api/ai-chat/stream: its body schema is POST /api/ai-chat's (fuzzed), but schemathesis
 *     4.32 trips over it with an internal error (CPython 3.11 "AST constructor recursion depth
 *     mismatch" while generating the history array) and then reruns it as flaky; the stream's
 *     validation and failures are covered by test/integration/ai-chat.test.ts.
 * Logout (/auth/logout) is not in the document, so the session is never ended by the fuzzer.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import { listenApp } from '../helpers/appServer';

process.env.RATE_LIMIT_PER_MINUTE = '1000000';

const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const store = createStore();
const { createTestSessionRecord } = await import('../helpers/session');
const { closePool } = await import('../../domain/db/pool');

/** Kept in step with SCHEMATHESIS_VERSION in scripts/bootstrap. */
const SCHEMATHESIS_VERSION = '4.32.5';
const TOOLS_DIR = process.env.TOOLS_DIR ?? path.join(os.homedir(), '.cache/cadastral-geoportal/tools');
const SCHEMATHESIS = path.join(TOOLS_DIR, `schemathesis-venv-${SCHEMATHESIS_VERSION}`, 'bin', 'schemathesis');

/** Fixed seed: the same cases every run, so a failure reproduces. */
const SEED = 20261123;
/** Cases per operation and phase: ~6,500 cases over ~110 operations, about two minutes. */
const MAX_EXAMPLES = 25;

const EXCLUDED = [
  'POST /api/landreg/login',
  'POST /api/landreg/session',
  'POST /api/cfportal/session',
  'POST /api/landreg/uats',
  'PATCH /api/landreg/uats',
  'POST /api/landreg/sync',
  'POST /api/landreg/sync-background',
  'POST /api/landreg/sync-county',
  'POST /api/landreg/sync-all-counties',
  'POST /api/landreg/refresh-all',
  'POST /api/landreg/weekend-sync',
  'POST /api/landreg/export-bundle',
  'POST /api/landreg/export-layer-gpkg',
  'POST /api/cfportal/order',
  'POST /tiles/rebuild-webhook',
  'POST /api/geoportal/tiles/rebuild',
  'POST /api/notifications/digest',
  'POST /api/manictime',
  'POST /api/ai-chat/stream',
];

let server: Server;
let base: string;
let session: Awaited<ReturnType<typeof createTestSessionRecord>>;
let reportDir: string;

beforeAll(async () => {
  session = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  ({ server, base } = await listenApp(createApp({ store })));
  reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-fuzz-'));
});

afterAll(async () => {
  await session.end();
  await new Promise((r) => server.close(r));
  await store.close();
  await closePool();
  fs.rmSync(reportDir, { recursive: true, force: true });
});

/** Runs schemathesis asynchronously: the API it talks to lives in this very process. */
function runSchemathesis(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // Its own cache goes to the run's temporary folder, not into the clone.
    const child = spawn(SCHEMATHESIS, args, { cwd: reportDir, env: { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('no operation of the OpenAPI document answers a 5xx to generated input (ordinary user, fixed seed)', async () => {
  expect(fs.existsSync(SCHEMATHESIS)).toBe(true);
  const junit = path.join(reportDir, 'junit.xml');
  const { code, output } = await runSchemathesis([
    'run',
    `${base}/api/openapi.json`,
    '--url', base,
    '--header', `Cookie: ${session.cookie}`,
    // As the UI's own pages send it: a cookie-signed write without it is refused with 403.
    '--header', `Origin: ${base}`,
    '--checks', 'not_a_server_error',
    '--seed', String(SEED),
    '--max-examples', String(MAX_EXAMPLES),
    '--workers', '2',
    '--request-timeout', '60',
    '--no-color',
    '--report', 'junit',
    '--report-junit-path', junit,
    ...EXCLUDED.flatMap((name) => ['--exclude-name', name]),
  ]);
  // The failures section names each operation, the 5xx body and a curl line that reproduces it.
  const failures = output.includes('FAILURES') ? output.slice(output.indexOf('FAILURES')) : '';
  const summary = /Test cases:\s*\n\s*(.*)/.exec(output)?.[1] ?? '';
  // Schemathesis also exits 1 on an error of its own. One is known and not ours: CPython 3.11's
  // "AST constructor recursion depth mismatch" inside Hypothesis while it builds a generator
  // (it strikes a different array schema from run to run). Any other error (a refused or
  // dropped connection, a crash) still fails the test.
  const errorsSection = /={3,} ERRORS ={3,}([\s\S]*?)(?:={3,} (?:WARNINGS|SUMMARY|FAILURES) ={3,}|$)/.exec(output)?.[1] ?? '';
  const errorBlocks = errorsSection.split(/^_{3,} .* _{3,}$/m).slice(1);
  const foreignErrors = errorBlocks.filter((b) => !/AST constructor recursion depth mismatch/.test(b));
  const exitExplained = code === 0 || (code === 1 && failures === '' && errorBlocks.length > 0 && foreignErrors.length === 0);
  if (!exitExplained) console.error(`schemathesis exit ${code}\n${failures || errorsSection || output.slice(-6000)}`);
  expect({ exitExplained, serverErrors: failures, foreignErrors }).toEqual({ exitExplained: true, serverErrors: '', foreignErrors: [] });
  expect(summary).toMatch(/^(\d+) generated, \1 passed/);
  // It really ran: thousands of cases over more than a hundred operations.
  expect(summary).toMatch(/^\d{4,} generated, \d+ passed/);
  expect(/Tested:\s*(\d+)/.exec(output)?.[1] && Number(/Tested:\s*(\d+)/.exec(output)![1])).toBeGreaterThan(100);
}, 600_000);

test('the inputs the fuzz run found are 400s with the contract body, not 500s', async () => {
  const call = (method: string, url: string, body?: unknown) =>
    fetch(`${base}${url}`, {
      method,
      headers: { cookie: session.cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const nul = await call('DELETE', '/api/storage?namespace=a%00b&key=k');
  expect(nul.status).toBe(400);
  expect(await nul.json()).toMatchObject({ error: 'bad_request', details: [{ field: 'namespace' }] });
  const bigSiruta = await call('POST', '/api/watchlist', { siruta: 19249285816779 });
  expect(bigSiruta.status).toBe(400);
  expect(await bigSiruta.json()).toMatchObject({ error: 'bad_request' });
  const nulBody = await call('PUT', '/api/storage', { namespace: 'fuzz', key: 'k\u0000', value: 'v' });
  expect(nulBody.status).toBe(400);
});
