/**
 * The tag manager's two-way sync with the time tracker's tag file (spec 4.6; CONTRACT.md section
 * 3): first sync, pull, push and both with edits on each side, a conflict reported and nothing
 * lost, then resolved; backups before every write and rotated at 20; a crash between the
 * temporary file and the rename leaves the old file whole and the app's tags as they were. The
 * whole API in process on a scratch database; the tag file in a temporary directory.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startOfficeApp, type OfficeApp } from '../helpers/officeApp';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tagsync-'));
const FILE = path.join(dir, 'tags.txt');
process.env.TAG_FILE_PATH = FILE;

let app: OfficeApp;
let cookie: string;

beforeAll(async () => {
  app = await startOfficeApp('geoportal_office_tags');
  cookie = (await app.session({ email: 'ana@birou.ro', company: 'B', groups: ['admin'] })).cookie;
});
afterAll(async () => {
  await app?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const call = (method: string, p: string, body?: unknown) => app.call(method, p, { auth: cookie, body });
const readFile = () => fs.readFile(FILE, 'utf8');
const backups = async () => (await fs.readdir(dir)).filter((n) => /^tags\.txt\.\d{8}T\d{9}Z(-\d+)?\.bak$/.test(n)).sort();
const appPaths = async () => ((await call('GET', '/api/tags')).body.items as Array<{ path: string }>).map((t) => t.path).sort();
const addTag = async (project: string, phase?: string, activity?: string) => {
  const r = await call('POST', '/api/tags', { project, phase, activity });
  expect(r.status).toBe(201);
  return r.body.tag as { id: string; path: string };
};

test('first sync with both: each side gets what only the other had; the old file is backed up first', async () => {
  await fs.writeFile(FILE, '# Etichete birou\nB-0123 Casa Popescu\nB-0123 Casa Popescu, DTAC\nB-0123 Casa Popescu, DTAC, Releveu\n');
  await addTag('U-0007 PUZ Sânpetru');
  await addTag('U-0007 PUZ Sânpetru', 'Avizare');

  const plan = await call('GET', '/api/manictime');
  expect(plan.status).toBe(200);
  expect(plan.body.file.path).toBe(FILE);
  // Where the file lives on the server is for administrators: a colleague reads the plan only.
  const colleague = (await app.session({ email: 'dan@birou.ro', company: 'B' })).cookie;
  const seen = await app.call('GET', '/api/manictime', { auth: colleague });
  expect(seen.status).toBe(200);
  expect(seen.body.file).toEqual(expect.objectContaining({ path: null, exists: true }));
  expect(plan.body.plan.firstSync).toBe(true);
  expect(plan.body.plan.file.added).toEqual(['B-0123 Casa Popescu', 'B-0123 Casa Popescu, DTAC', 'B-0123 Casa Popescu, DTAC, Releveu']);
  expect(plan.body.plan.db.added.sort()).toEqual(['U-0007 PUZ Sânpetru', 'U-0007 PUZ Sânpetru, Avizare']);
  expect(plan.body.plan.conflicts).toEqual([]);

  const res = await call('POST', '/api/manictime', { mode: 'both', expectFingerprint: plan.body.fingerprint });
  expect(res.status).toBe(200);
  expect(res.body.applied.db).toEqual({ added: 3, removed: 0, changed: 0 });
  expect(res.body.applied.file.written).toBe(true);
  expect(await readFile()).toBe(
    '# Etichete birou\nB-0123 Casa Popescu\nB-0123 Casa Popescu, DTAC\nB-0123 Casa Popescu, DTAC, Releveu\nU-0007 PUZ Sânpetru\nU-0007 PUZ Sânpetru, Avizare\n',
  );
  expect(await backups()).toHaveLength(1);
  expect(await fs.readFile(path.join(dir, (await backups())[0]), 'utf8')).toContain('B-0123 Casa Popescu, DTAC, Releveu\n');
  expect((await appPaths()).length).toBe(5);
  const after = await call('GET', '/api/manictime');
  expect(after.body.plan.inSync).toBe(true);
  expect(after.body.plan.firstSync).toBe(false);
  // The project tags API sees the pulled project with its code and company.
  const projects = await call('GET', '/api/project-tags?q=popescu');
  expect(projects.body.items).toEqual([expect.objectContaining({ code: 'B-0123', name: 'Casa Popescu', company: 'B' })]);
});

test('edits on each side: pull brings the file’s into the app only, push writes the app’s into the file only', async () => {
  // The time tracker renames a project and adds an activity; the app adds a phase and drops one.
  await fs.writeFile(
    FILE,
    (await readFile()).replace('U-0007 PUZ Sânpetru\nU-0007 PUZ Sânpetru, Avizare\n', 'U-0007 PUZ Sânpetru Nord\nU-0007 PUZ Sânpetru, Avizare\n') +
      'B-0123 Casa Popescu, DTAC, Memoriu\n',
  );
  await addTag('B-0123 Casa Popescu', 'PT');
  const releveu = (await call('GET', '/api/tags?q=releveu')).body.items[0];
  expect((await call('DELETE', `/api/tags/${releveu.id}`)).body).toEqual({ deleted: 1 });

  const plan = (await call('GET', '/api/manictime')).body.plan;
  expect(plan.file).toEqual({
    added: ['B-0123 Casa Popescu, DTAC, Memoriu'],
    removed: [],
    changed: [{ from: 'U-0007 PUZ Sânpetru', to: 'U-0007 PUZ Sânpetru Nord' }],
  });
  expect(plan.db).toEqual({ added: ['B-0123 Casa Popescu, PT'], removed: ['B-0123 Casa Popescu, DTAC, Releveu'], changed: [] });

  const fileBefore = await readFile();
  const backupsBefore = (await backups()).length;
  const pulled = await call('POST', '/api/manictime', { mode: 'pull' });
  expect(pulled.body.applied).toEqual({ db: { added: 1, removed: 0, changed: 1 }, file: { written: false, backup: null } });
  expect(await readFile()).toBe(fileBefore);
  expect(await backups()).toHaveLength(backupsBefore);
  expect(await appPaths()).toEqual(
    expect.arrayContaining(['B-0123 Casa Popescu, DTAC, Memoriu', 'U-0007 PUZ Sânpetru Nord', 'B-0123 Casa Popescu, PT']),
  );
  expect(await appPaths()).not.toContain('U-0007 PUZ Sânpetru');
  // The app's own edits are still pending for a push.
  const pending = (await call('GET', '/api/manictime')).body.plan;
  expect(pending.file).toEqual({ added: [], removed: [], changed: [] });
  expect(pending.db.added).toEqual(['B-0123 Casa Popescu, PT']);

  const pushed = await call('POST', '/api/manictime', { mode: 'push' });
  expect(pushed.body.applied.db).toEqual({ added: 0, removed: 0, changed: 0 });
  expect(pushed.body.applied.file.written).toBe(true);
  expect(await backups()).toHaveLength(backupsBefore + 1);
  expect(await readFile()).toBe(
    '# Etichete birou\nB-0123 Casa Popescu\nB-0123 Casa Popescu, DTAC\nU-0007 PUZ Sânpetru Nord\nU-0007 PUZ Sânpetru, Avizare\nB-0123 Casa Popescu, DTAC, Memoriu\nB-0123 Casa Popescu, PT\n',
  );
  expect((await call('GET', '/api/manictime')).body.plan.inSync).toBe(true);
  // Nothing to do: no write, no backup.
  const idle = await call('POST', '/api/manictime', { mode: 'both' });
  expect(idle.body.applied.file).toEqual({ written: false, backup: null });
  expect(await backups()).toHaveLength(backupsBefore + 1);
});

test('a tag edited differently on both sides is a conflict: reported, both versions kept, then resolved by the user', async () => {
  await fs.writeFile(FILE, (await readFile()).replace('B-0123 Casa Popescu\n', 'B-0123 Casa Popescu-Ionescu\n'));
  const popescu = (await call('GET', '/api/tags')).body.items.find((t: { path: string }) => t.path === 'B-0123 Casa Popescu');
  await call('DELETE', `/api/tags/${popescu.id}`); // the project line with everything under it…
  await addTag('B-0123 Casa Popescu Renovare'); // …replaced by a renamed project line
  for (const [ph, a] of [['DTAC', null], ['DTAC', 'Memoriu'], ['PT', null]] as const) await addTag('B-0123 Casa Popescu', ph, a ?? undefined);

  const plan = (await call('GET', '/api/manictime')).body.plan;
  expect(plan.conflicts).toEqual([
    expect.objectContaining({ base: 'B-0123 Casa Popescu', file: 'B-0123 Casa Popescu-Ionescu', db: 'B-0123 Casa Popescu Renovare' }),
  ]);
  const res = await call('POST', '/api/manictime', { mode: 'both' });
  expect(res.body.conflicts).toHaveLength(1);
  expect(await readFile()).toContain('B-0123 Casa Popescu-Ionescu\n');
  expect(await appPaths()).toContain('B-0123 Casa Popescu Renovare');
  // Still a conflict on the next look: nothing was silently decided.
  const again = (await call('GET', '/api/manictime')).body.plan.conflicts;
  expect(again).toHaveLength(1);

  const resolved = await call('POST', '/api/manictime', { mode: 'both', resolutions: { [again[0].key]: 'db' } });
  expect(resolved.body.conflicts).toEqual([]);
  expect(await readFile()).toContain('\nB-0123 Casa Popescu Renovare\n');
  expect(await readFile()).not.toContain('Ionescu');
  expect((await call('GET', '/api/manictime')).body.plan.inSync).toBe(true);
});

test('a crash between the temporary file and the rename leaves the old file whole and the app unchanged', async () => {
  const { applyTagSync, tagSyncPlan } = await import('../../domain/tags/tags');
  const { getPrisma } = await import('../../domain/db/prisma');
  await addTag('G-0009 Sediu nou');
  await fs.appendFile(FILE, 'S-0003 Cadastru Ilieni\n');
  const fileBefore = await readFile();
  const tagsBefore = await appPaths();
  const planBefore = await tagSyncPlan(getPrisma(), FILE);
  let tmpSeen = '';
  await expect(
    applyTagSync(getPrisma(), FILE, { mode: 'both' }, 'test', {
      beforeRename: async (tmp) => {
        tmpSeen = tmp;
        expect(await fs.readFile(tmp, 'utf8')).toContain('G-0009 Sediu nou');
        throw new Error('power cut');
      },
    }),
  ).rejects.toThrow('power cut');
  expect(await readFile()).toBe(fileBefore);
  expect(await appPaths()).toEqual(tagsBefore);
  await expect(fs.access(tmpSeen)).rejects.toThrow();
  expect((await tagSyncPlan(getPrisma(), FILE)).plan).toEqual(planBefore.plan);
  // The next sync goes through.
  await call('POST', '/api/manictime', { mode: 'both' });
  expect(await readFile()).toContain('G-0009 Sediu nou');
  expect(await appPaths()).toContain('S-0003 Cadastru Ilieni');
});

test('backups are made before every write and the newest 20 are kept', async () => {
  for (let i = 0; i < 22; i++) {
    await addTag('G-0010 Rotire', `Faza ${String(i).padStart(2, '0')}`);
    const r = await call('POST', '/api/manictime', { mode: 'push' });
    expect(r.body.applied.file.written).toBe(true);
  }
  const kept = await backups();
  expect(kept).toHaveLength(20);
  // The newest backup is the file as it was before the last write.
  const newest = await fs.readFile(path.join(dir, kept[kept.length - 1]), 'utf8');
  expect(newest).toContain('G-0010 Rotire, Faza 20\n');
  expect(newest).not.toContain('Faza 21');
  expect(await readFile()).toContain('G-0010 Rotire, Faza 21\n');
});

test('bad bodies are 400 with details; a stale plan is 409; no session is 401', async () => {
  const bad = await call('POST', '/api/manictime', { mode: 'sideways' });
  expect(bad.status).toBe(400);
  expect(bad.body.details[0].field).toBe('mode');
  const comma = await call('POST', '/api/tags', { project: 'A, B' });
  expect(comma.status).toBe(400);
  expect(comma.body.details[0].field).toBe('project');
  const dup = await call('POST', '/api/tags', { project: 'G-0010 Rotire' });
  expect(dup.status).toBe(201);
  expect((await call('POST', '/api/tags', { project: 'G-0010 Alt nume' })).status).toBe(409);
  const stale = await call('POST', '/api/manictime', { mode: 'both', expectFingerprint: 'x'.repeat(32) });
  expect(stale.status).toBe(409);
  expect(stale.body.error).toBe('plan_changed');
  expect((await app.call('GET', '/api/manictime')).status).toBe(401);
});

test('a user who is not an administrator may pull and add, but not write the file nor delete (403)', async () => {
  const dan = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
  const asDan = (method: string, p: string, body?: unknown) => app.call(method, p, { auth: dan, body });
  const fileBefore = await readFile();
  const backupsBefore = await backups();
  for (const body of [{ mode: 'push' }, { mode: 'both' }]) {
    const r = await asDan('POST', '/api/manictime', body);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'forbidden', message: expect.stringContaining('administratorii') });
  }
  const tag = (await asDan('POST', '/api/tags', { project: 'U-0099 Anexă Dan' })).body.tag as { id: string };
  expect(tag.id).toEqual(expect.any(String));
  expect((await asDan('DELETE', `/api/tags/${tag.id}`)).status).toBe(403);
  expect(await appPaths()).toContain('U-0099 Anexă Dan');
  // A pull only brings the file's changes into the app: open to everyone, the file untouched.
  await fs.appendFile(FILE, 'U-0100 Adus de Dan\n');
  const pulled = await asDan('POST', '/api/manictime', { mode: 'pull' });
  expect(pulled.status).toBe(200);
  expect(pulled.body.applied.file.written).toBe(false);
  expect(await appPaths()).toContain('U-0100 Adus de Dan');
  expect(await readFile()).toBe(`${fileBefore}U-0100 Adus de Dan\n`);
  expect(await backups()).toEqual(backupsBefore);
  // The administrator deletes what Dan could not.
  expect((await call('DELETE', `/api/tags/${tag.id}`)).status).toBe(200);
});

test('an administrator renames a tag and changes its company: what is under it follows, the next plan shows it; others get 403', async () => {
  const project = await addTag('S-0300 Teren Zagon');
  const phase = await addTag('S-0300 Teren Zagon', 'Ridicare');
  await addTag('S-0300 Teren Zagon', 'Ridicare', 'Teren');
  await addTag('S-0301 Vecin');

  // The project renamed (code kept): its phase and activity move with it.
  const renamed = await call('PUT', `/api/tags/${project.id}`, { name: 'S-0300 Teren Zagon Nord' });
  expect(renamed.status).toBe(200);
  expect(renamed.body.tag).toEqual(expect.objectContaining({ id: project.id, path: 'S-0300 Teren Zagon Nord', projectCode: 'S-0300', company: 'S' }));
  const paths = await appPaths();
  expect(paths).toEqual(expect.arrayContaining(['S-0300 Teren Zagon Nord', 'S-0300 Teren Zagon Nord, Ridicare', 'S-0300 Teren Zagon Nord, Ridicare, Teren']));
  expect(paths.filter((p) => p.startsWith('S-0300 Teren Zagon,'))).toEqual([]);

  // A phase renamed; the project moved to another company with everything under it.
  expect((await call('PUT', `/api/tags/${phase.id}`, { name: 'Ridicare topografică' })).body.tag.path).toBe('S-0300 Teren Zagon Nord, Ridicare topografică');
  expect((await call('PUT', `/api/tags/${project.id}`, { company: 'B' })).status).toBe(200);
  const items = (await call('GET', '/api/tags?company=B')).body.items as Array<{ path: string }>;
  expect(items.map((t) => t.path).filter((p) => p.startsWith('S-0300')).sort()).toEqual([
    'S-0300 Teren Zagon Nord',
    'S-0300 Teren Zagon Nord, Ridicare topografică',
    'S-0300 Teren Zagon Nord, Ridicare topografică, Teren',
  ]);
  // Back to the company its code implies.
  expect((await call('PUT', `/api/tags/${project.id}`, { company: null })).body.tag.company).toBe('S');

  // The app's changes are what the next sync would write.
  const plan = (await call('GET', '/api/manictime')).body.plan;
  expect([...plan.db.added, ...plan.db.changed.map((c: { to: string }) => c.to)]).toEqual(expect.arrayContaining(['S-0300 Teren Zagon Nord, Ridicare topografică, Teren']));

  // Another tag's name is refused; so is an empty or a comma name, and an unknown tag.
  const clash = await call('PUT', `/api/tags/${project.id}`, { name: 'S-0301 Alt nume' });
  expect(clash.status).toBe(409);
  expect(clash.body.error).toBe('tag_exists');
  expect((await call('PUT', `/api/tags/${project.id}`, { name: 'A, B' })).status).toBe(400);
  expect((await call('PUT', `/api/tags/${project.id}`, {})).status).toBe(400);
  expect((await call('PUT', '/api/tags/00000000-0000-4000-8000-000000000000', { name: 'X' })).status).toBe(404);

  const dan = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
  expect((await app.call('PUT', `/api/tags/${project.id}`, { auth: dan, body: { name: 'S-0300 Altceva' } })).status).toBe(403);
  expect(await appPaths()).toContain('S-0300 Teren Zagon Nord');
});

test('two colleagues adding one project at the same moment: one tag, the other told it exists (409, it was a 500); one code under two names likewise', async () => {
  const both = async (a: string, b: string) => {
    const answers = await Promise.all([call('POST', '/api/tags', { project: a }), call('POST', '/api/tags', { project: b })]);
    return answers.map((r) => ({ status: r.status, error: r.body.error })).sort((x, y) => x.status - y.status);
  };
  for (let round = 0; round < 5; round++) {
    const name = `S-05${round}0 Casa Deal`;
    expect(await both(name, name)).toEqual([{ status: 201, error: undefined }, { status: 409, error: 'tag_exists' }]);
    // The same code: one project, whatever the name each colleague typed.
    expect(await both(`U-05${round}1 Casa Deal`, `U-05${round}1 Casa de pe Deal`)).toEqual([{ status: 201, error: undefined }, { status: 409, error: 'tag_exists' }]);
  }
  const paths = await appPaths();
  expect(paths.filter((p) => /^[SU]-05\d\d /.test(p))).toHaveLength(10);
});
