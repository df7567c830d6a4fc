/**
 * The ready QGIS project (issue 42, docs/qgis.md "A ready project"), against the running stack:
 * downloaded over HTTP as a user, then opened by QGIS itself (Debian's python3-qgis, headless,
 * test/helpers/qgis_open.py) with a Basic authentication configuration holding a real personal
 * token, as the user is told to create it. QGIS must find every layer valid in EPSG:3844, read
 * the UAT's parcels (and only them) from /ogc, and label them with the cadastral number; the
 * basic-panel viewer's project names no enrichment key at all. Siruta range 991500-991599.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { closePool, getPool } from '../../domain/db/pool';
import { PERSONAL_ENRICHMENT_KEYS } from '../../domain/auth/viewer';
import { QGIS_AUTHCFG } from '../../domain/ogc/rules';
import { E2E_BASE_URL, E2E_ORIGIN } from '../helpers/e2e';
import { callJson } from '../helpers/appServer';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { clearExportUat, seedExportUat } from '../helpers/exportSeed';

const run = promisify(execFile);
const base = E2E_BASE_URL;
const SIRUTA = 991500;
const OTHER = 991501;
const PARCELS = 60;
/** QGIS takes seconds to start on an idle machine and far longer on a loaded one. */
const QGIS_TIMEOUT_MS = 240_000;

let tmp: string;
let dan: TestSession;
let elena: TestSession;

interface QgisLayer {
  name: string;
  provider: string;
  valid: boolean;
  crs: string;
  fields: string[];
  subset: string;
  labelsEnabled: boolean;
  labelField: string | null;
  renderer: string | null;
  features: number;
  cadastralRefs: (string | null)[];
  sirutas: number[];
  error: string | null;
}
interface QgisAnswer {
  projectCrs: string;
  title: string;
  layers: QgisLayer[];
}

const tokenOf = async (who: TestSession) =>
  (await callJson(base, 'POST', '/api/tokens', { body: { name: 'Proiect QGIS' }, cookie: who.cookie, origin: E2E_ORIGIN })).body.token as string;

/** GET the project as the browser's download link does; the file lands in the test's temp dir. */
async function download(query: string, cookie?: string) {
  const res = await fetch(`${base}/api/qgis/project${query}`, { headers: cookie ? { cookie } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes };
}

async function saved(name: string, bytes: Buffer): Promise<{ file: string; qgs: string }> {
  const file = path.join(tmp, name);
  await fs.writeFile(file, bytes);
  const { stdout } = await run('unzip', ['-p', file], { maxBuffer: 16 * 1024 * 1024 });
  return { file, qgs: stdout };
}

/** QGIS opens the project with a fresh profile whose authentication database holds the token. */
async function openInQgis(file: string, token: string): Promise<QgisAnswer> {
  const profile = await fs.mkdtemp(path.join(tmp, 'profile-'));
  const { stdout } = await run('/usr/bin/python3', [path.resolve('test/helpers/qgis_open.py'), file, profile, QGIS_AUTHCFG], {
    env: { ...process.env, QGIS_TEST_TOKEN: token, QT_QPA_PLATFORM: 'offscreen', XDG_RUNTIME_DIR: profile },
    timeout: QGIS_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`QGIS gave no answer:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice('RESULT '.length)) as QgisAnswer;
}

const layer = (a: QgisAnswer, name: string) => {
  const l = a.layers.find((x) => x.name === name);
  if (!l) throw new Error(`no layer ${name} in ${a.layers.map((x) => x.name).join(', ')}`);
  return l;
};

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'qgis-project-'));
  await seedExportUat(getPool(), { siruta: SIRUTA, name: 'Târgu QGIS', county: 'Mureș', parcels: PARCELS, noGeometry: 3 });
  // A neighbour with the same cadastral numbers: a layer that reads it was not limited to the UAT.
  await seedExportUat(getPool(), { siruta: OTHER, name: 'Vecin QGIS', county: 'Mureș', parcels: 20, noGeometry: 0 });
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U', enrichmentScope: 'full' });
  elena = await createTestSessionRecord({ email: 'elena@birou.ro', company: 'B', enrichmentScope: 'full' });
}, 120_000);

afterAll(async () => {
  const users = [dan, elena].filter(Boolean);
  await getPool().query(`DELETE FROM personal_access_tokens WHERE user_id = ANY($1)`, [users.map((s) => s.data.user.id)]);
  await Promise.allSettled(users.map((s) => s.end()));
  await clearExportUat(getPool(), SIRUTA);
  await clearExportUat(getPool(), OTHER);
  await fs.rm(tmp, { recursive: true, force: true });
  await closePool();
});

describe('GET /api/qgis/project', () => {
  it(
    'a UAT’s project opens in QGIS with a token: four valid OGC API layers in EPSG:3844, the UAT’s parcels only, labelled with the cadastral number',
    async () => {
      const r = await download(`?siruta=${SIRUTA}`, dan.cookie);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/vnd.qgis.qgz');
      expect(r.headers.get('content-disposition')).toContain('targu-qgis-991500_proiect-qgis.qgz');
      const token = await tokenOf(dan);
      const { file, qgs } = await saved('dan.qgz', r.bytes);
      // The user completes the authentication entry; the file carries its id and no secret.
      expect(qgs).toContain(`authcfg='${QGIS_AUTHCFG}'`);
      // The UAT's own collections: the server, not QGIS, leaves the other UATs out.
      expect(qgs).toContain(`typename='parcels-${SIRUTA}'`);
      expect(qgs).not.toContain('cgp_pat_');
      expect(qgs).not.toContain(dan.cookie.split('=')[1]);

      const qgis = await openInQgis(file, token);
      expect(qgis.projectCrs).toBe('EPSG:3844');
      expect(qgis.title).toContain('Târgu QGIS');
      expect(qgis.layers.map((l) => l.name).sort()).toEqual(['Clădiri', 'Limite UAT', 'Limite intravilan', 'Parcele']);
      for (const l of qgis.layers) {
        expect({ name: l.name, valid: l.valid, provider: l.provider, crs: l.crs, error: l.error }).toEqual({
          name: l.name,
          valid: true,
          provider: 'OAPIF',
          crs: 'EPSG:3844',
          error: null,
        });
        expect(l.sirutas).toEqual([SIRUTA]);
      }
      const parcels = layer(qgis, 'Parcele');
      const withGeometry = (await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND geom IS NOT NULL`, [SIRUTA])).rows[0].n;
      expect(parcels.features).toBeGreaterThanOrEqual(withGeometry);
      expect(parcels.features).toBeLessThanOrEqual(withGeometry + 3);
      expect(parcels.cadastralRefs).toContain('100007');
      expect(parcels.labelsEnabled).toBe(true);
      expect(parcels.labelField).toBe('cadastral_ref');
      // Green/amber by enrichment as on the map: a full viewer's parcels carry the stamp it reads.
      expect(parcels.renderer).toBe('RuleRenderer');
      expect(parcels.fields).toEqual(expect.arrayContaining(['cadastral_ref', 'ENRICHED_AT', 'PROPRIETARI']));
      expect(layer(qgis, 'Clădiri').features).toBe(PARCELS / 2);
      expect(layer(qgis, 'Limite UAT').features).toBe(1);
    },
    QGIS_TIMEOUT_MS + 60_000,
  );

  it(
    'the basic-panel viewer’s project names no enrichment key, and QGIS reads her parcels without personal data',
    async () => {
      const r = await download(`?siruta=${SIRUTA}`, elena.cookie);
      expect(r.status).toBe(200);
      const { file, qgs } = await saved('elena.qgz', r.bytes);
      for (const key of [...PERSONAL_ENRICHMENT_KEYS, 'ENRICHED_AT']) expect(qgs).not.toMatch(new RegExp(`\\b${key}\\b`));
      const qgis = await openInQgis(file, await tokenOf(elena));
      const parcels = layer(qgis, 'Parcele');
      expect(parcels.valid).toBe(true);
      expect(parcels.renderer).toBe('singleSymbol');
      expect(parcels.labelField).toBe('cadastral_ref');
      expect(parcels.cadastralRefs).toContain('100007');
      expect(parcels.fields.filter((f) => (PERSONAL_ENRICHMENT_KEYS as readonly string[]).includes(f))).toEqual([]);
    },
    QGIS_TIMEOUT_MS + 60_000,
  );

  it('without a UAT: every UAT, no siruta filter', async () => {
    const r = await download('', dan.cookie);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toContain('geoportal_proiect-qgis.qgz');
    const { qgs } = await saved('all.qgz', r.bytes);
    expect(qgs).toContain("typename='parcels'");
    expect(qgs).not.toContain(`-${SIRUTA}'`);
  });

  it('a UAT’s collection (/ogc/collections/parcels-<siruta>) serves that UAT only, by token', async () => {
    const token = await tokenOf(dan);
    const get = (p: string) => fetch(`${base}${p}`, { headers: { authorization: `Bearer ${token}` } });
    const doc = await get(`/ogc/collections/parcels-${SIRUTA}`);
    expect(doc.status).toBe(200);
    expect((await doc.json()).links.find((l: { rel: string }) => l.rel === 'items').href).toContain(`/ogc/collections/parcels-${SIRUTA}/items`);
    const page = await (await get(`/ogc/collections/parcels-${SIRUTA}/items?limit=1000`)).json();
    const sirutas = new Set(page.features.map((f: { properties: { siruta: number } }) => f.properties.siruta));
    expect([...sirutas]).toEqual([SIRUTA]);
    expect(page.numberReturned).toBeGreaterThanOrEqual(PARCELS);
    expect((await get(`/ogc/collections/parcels-${SIRUTA}/items?siruta=${OTHER}`)).status).toBe(400);
    expect((await get(`/ogc/collections/nimic-${SIRUTA}/items`)).status).toBe(404);
    // By id too: a feature of the neighbour is not in this UAT's collection, though it is in the whole one.
    const theirs = (await (await get(`/ogc/collections/parcels/items?siruta=${OTHER}&limit=1`)).json()).features[0];
    expect((await get(`/ogc/collections/parcels/items/${theirs.id}`)).status).toBe(200);
    const refused = await get(`/ogc/collections/parcels-${SIRUTA}/items/${theirs.id}`);
    expect(refused.status).toBe(404);
    expect((await refused.json()).error).toBe('not_found');
    expect((await get(`/ogc/collections/parcels-${SIRUTA}/items/${page.features[0].id}`)).status).toBe(200);
  });

  it('refuses an unknown UAT (404), a malformed siruta (400) and a caller without a session (401), with the error body', async () => {
    const unknown = await callJson(base, 'GET', '/api/qgis/project?siruta=991599', { cookie: dan.cookie });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('UAT') });
    const bad = await callJson(base, 'GET', '/api/qgis/project?siruta=abc', { cookie: dan.cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBeTruthy();
    const anonymous = await callJson(base, 'GET', `/api/qgis/project?siruta=${SIRUTA}`);
    expect(anonymous.status).toBe(401);
    // A personal token is for /ogc and /tiles only, not for the rest of /api.
    const withToken = await fetch(`${base}/api/qgis/project?siruta=${SIRUTA}`, { headers: { authorization: `Bearer ${await tokenOf(dan)}` } });
    expect(withToken.status).toBe(401);
  });
});
