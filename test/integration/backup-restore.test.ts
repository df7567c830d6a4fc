/**
 * The restore drill (issue 41): registry entries with attachments, vault entries, a token, a CF
 * extract and synced parcels are written; a backup is taken; more registry entries are written;
 * the data directory is wiped; a restore to a time between the two sets gives back exactly the
 * first set. Runs on a PostgreSQL cluster and buckets of its own (the shared test stack's server
 * and buckets stay untouched), through the product's backup and restore code, against the
 * stack's object store through the TLS front pgBackRest talks to.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteBucketCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../../domain/config';
import { createStore, type Store } from '../../domain/db/store';
import { migrate } from '../../domain/db/migrate';
import { bucketNames, ensureBuckets, s3 } from '../../domain/storage/s3';
import { switchWal } from '../../domain/backup/pgbackrest';
import { listAll } from '../../domain/backup/objects';
import { backupRuns, ensureBackupRepository, lastBackup, restore, runBackup, walArchivedUpTo } from '../../domain/backup/runs';
import { createEntry } from '../../domain/registry/entries';
import { addAttachment, openAttachment } from '../../domain/registry/attachments';
import { registryViewer } from '../../domain/registry/access';
import { createVaultEntry, revealVaultEntry } from '../../domain/office/vault';
import { createToken, findLiveToken, tokenHash } from '../../domain/auth/personalTokens';
import { seedExportUat } from '../helpers/exportSeed';
import { scratchCluster, type ScratchCluster } from '../helpers/scratchCluster';

const tag = `drill${process.pid}${Date.now().toString(36)}`;
// The drill's own buckets: the product's code reads the names from config, which is this file's own.
const buckets = config.s3.buckets as Record<string, string>;
for (const k of Object.keys(buckets)) buckets[k] = `${tag}-${k}`.toLowerCase();

const viewer = registryViewer({ user: { id: 'drill-admin', name: 'Exercițiu', company: 'B' }, isAdmin: true, basicPanel: false, enrichmentScope: null });
const vaultCaller = { userId: 'drill-admin', email: 'ana@birou.ro', company: 'B' };
const SIRUTA = 990_041;

let cluster: ScratchCluster;
let store: Store;
const dbName = 'geoportal_drill';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drill-files-'));

async function entryWithAttachment(i: number): Promise<{ id: string; number: string; sequence: number; attachmentId: string; bytes: Buffer }> {
  const entry = await createEntry(store.pool, viewer, { direction: 'intrare', subject: `Cerere de exercițiu ${i}`, sender: 'Ion Popescu' });
  const bytes = randomBytes(200_000 + i);
  const file = path.join(tmp, `a${i}.bin`);
  fs.writeFileSync(file, bytes);
  const withFile = await addAttachment(store.prisma, viewer, entry.id, {
    path: file, fileName: `anexa-${i}.pdf`, mimeType: 'application/pdf', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'),
  });
  return { id: entry.id, number: entry.number, sequence: entry.sequence, attachmentId: withFile.attachments.at(-1)!.id, bytes };
}

async function readAll(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  cluster = await scratchCluster(tag);
  await cluster.start();
  const admin = createStore(cluster.url('postgres'), { max: 1 });
  await admin.pool.query(`CREATE DATABASE ${dbName}`);
  await admin.close();
  await migrate(cluster.url(dbName));
  store = createStore(cluster.url(dbName), { max: 4 });
  await ensureBuckets();
  await ensureBackupRepository(cluster.target);
}, 120_000);

afterAll(async () => {
  await store?.close().catch(() => undefined);
  await cluster?.remove();
  for (const Bucket of bucketNames()) {
    const keys = await listAll(Bucket).catch(() => []);
    for (const o of keys) await s3().send(new DeleteObjectCommand({ Bucket, Key: o.Key! }));
    await s3().send(new DeleteBucketCommand({ Bucket })).catch(() => undefined);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

test('a restore to a time between two sets of writes gives back exactly the first set', async () => {
  // The first set: registry entries with attachments, vault entries, a token, a CF extract, synced parcels.
  const first = [];
  for (let i = 0; i < 3; i++) first.push(await entryWithAttachment(i));
  const vault = await createVaultEntry(store.prisma, vaultCaller, { name: 'Portal ANCPI', username: 'birou', password: 'parolă-secretă-ț' });
  const token = await createToken(store.pool, { user: { id: 'drill-admin', email: 'ana@birou.ro', name: 'Ana', company: 'B' }, groups: [], enrichmentScope: null, emailVerified: true }, { name: 'QGIS', expiresInDays: 30 });
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5000)]);
  const cfKey = `extracts/${tag}.pdf`;
  await s3().send(new PutObjectCommand({ Bucket: config.s3.buckets.cf, Key: cfKey, Body: pdf, ContentType: 'application/pdf' }));
  await store.pool.query(
    `INSERT INTO cf_extracts (user_id, nr_cadastral, siruta, status, s3_key, document_name, issued_at, expires_at)
     VALUES ('drill-admin', '50123', $1, 'completed', $2, 'Extras CF 50123', now(), now() + interval '30 days')`,
    [SIRUTA, cfKey],
  );
  const seeded = await seedExportUat(store.pool, { siruta: SIRUTA, name: 'Exercițiu', county: 'Covasna', parcels: 60, noGeometry: 0, syncedHoursAgo: 1 });

  const began = Date.now();
  const { run } = await runBackup(cluster.target, { id: `${tag}-1`, type: 'full' });
  const backupSeconds = (Date.now() - began) / 1000;
  expect(run).toMatchObject({ status: 'done', type: 'full' });
  expect(run.sizeBytes).toBeGreaterThan(0);

  // The point to restore to, then the second set, which the restore must not bring back.
  await new Promise((r) => setTimeout(r, 1500));
  const between = new Date();
  await new Promise((r) => setTimeout(r, 1500));
  const second = [];
  for (let i = 10; i < 12; i++) second.push(await entryWithAttachment(i));
  // Its commits reach the archive now rather than within archive_timeout.
  await switchWal(cluster.target);
  const wal = await until(async () => {
    const upTo = await walArchivedUpTo(cluster.target);
    return upTo && Date.parse(upTo) > between.getTime() ? upTo : null;
  });
  expect(Date.parse(wal)).toBeGreaterThan(between.getTime());

  // The lost disk.
  await store.close();
  await cluster.stop();
  cluster.wipe();

  const restoreBegan = Date.now();
  const restored = await restore(cluster.target, { to: between, binDir: config.db.binDir });
  const restoreSeconds = (Date.now() - restoreBegan) / 1000;
  expect(restored).toMatchObject({ reached: 'target', objects: { manifest: run.label, removed: second.length } });
  await cluster.start();
  store = createStore(cluster.url(dbName), { max: 4 });

  // Exactly the first set of registry entries, attachments byte-equal.
  const rows = await store.pool.query<{ number: string }>(`SELECT number FROM registry_entries ORDER BY sequence`);
  expect(rows.rows.map((r) => r.number)).toEqual(first.map((e) => e.number));
  for (const e of first) {
    const file = await openAttachment(store.prisma, viewer, e.id, e.attachmentId);
    expect((await readAll(file.body)).equals(e.bytes)).toBe(true);
  }
  for (const e of second) {
    await expect(s3().send(new HeadObjectCommand({ Bucket: config.s3.buckets.attachments, Key: `registry/${e.id}/${e.attachmentId}` }))).rejects.toThrow();
  }
  // The vault entry decrypts, the token signs in, the CF extract and its PDF are there, the parcels too.
  expect((await revealVaultEntry(store.prisma, vaultCaller, vault.id)).password).toBe('parolă-secretă-ț');
  expect(await findLiveToken(store.pool, tokenHash(token.token))).toMatchObject({ id: token.id });
  const cf = await store.pool.query(`SELECT s3_key FROM cf_extracts WHERE nr_cadastral = '50123'`);
  expect(cf.rows).toEqual([{ s3_key: cfKey }]);
  const cfPdf = await s3().send(new GetObjectCommand({ Bucket: config.s3.buckets.cf, Key: cfKey }));
  expect(Buffer.from(await cfPdf.Body!.transformToByteArray()).equals(pdf)).toBe(true);
  const parcels = await store.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE'`, [SIRUTA]);
  expect(parcels.rows[0].n).toBe(seeded.parcelsWithGeometry);

  // The next registry number follows the last restored one; none is given twice.
  const next = await createEntry(store.pool, viewer, { direction: 'iesire', subject: 'După restaurare' });
  expect(next.sequence).toBe(first.at(-1)!.sequence + 1);
  const numbers = await store.pool.query<{ number: string }>(`SELECT number FROM registry_entries`);
  expect(new Set(numbers.rows.map((r) => r.number)).size).toBe(numbers.rows.length);

  // The backup is listed and counts as the last good one.
  expect((await backupRuns(cluster.target))[0]).toMatchObject({ id: `${tag}-1`, status: 'done' });
  expect(await lastBackup(cluster.target)).toMatchObject({ ok: true, lastAt: run.endedAt });
  console.log(JSON.stringify({ drill: 'backup-restore', backupSeconds, restoreSeconds, backupBytes: run.sizeBytes }));
}, 240_000);

async function until<T>(fn: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 500));
  }
}
