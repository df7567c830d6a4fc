/**
 * CF validity on Temporal's clock (issue 15 item 6): the cfOrderBatch workflow runs on the Java
 * test server (time skipping) with real activities against the certificate portal simulator,
 * PostgreSQL and MinIO. Status polls hours apart are skipped; the extract is issued at the
 * workflow's time and valid 30 days from it; within them a new order is a catalog hit, after them
 * it is accepted without `force` as the next version.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { ulid } from 'ulid';
import { config } from '../../domain/config';
import { createPool } from '../../domain/db/pool';
import { createPrisma, type PrismaClient } from '../../domain/db/prisma';
import { CF_VALIDITY_MS, createBatch, getExtract } from '../../domain/cfportal/extracts';
import { uiState } from '../../domain/cfportal/rules';
import { startCfportalSimulator, type CfportalSimulator } from '../../simulators/cfportal/server';
import { TaskQueue, type TaskQueueName } from '../../temporal/common/queues';
import { createQueueWorkers } from '../../workers/start';
import type { cfOrderBatch } from '../../workflows/cfOrders';
import { CF_QUEUES, freshCadastral, someUats } from '../helpers/cfStack';
import { runSuffix, timeSkippingEnv, namespaceOf } from '../helpers/temporal';
import { storeOn } from '../../domain/db/store';

const HOUR = 3600_000;
let env: TestWorkflowEnvironment;
let sim: CfportalSimulator;
let db: pg.Pool;
let prisma: PrismaClient;
let workers: Map<TaskQueueName, Worker>;
let runs: Promise<void>[];
const suffix = runSuffix();
const credentials = { username: `cf-${suffix}`, password: 'parola-cf' };
// The batches below are written straight to the store, under this run's account.
const accountInUse = async () => credentials.username;

beforeAll(async () => {
  env = await timeSkippingEnv();
  sim = await startCfportalSimulator({ port: 0, ...credentials, pollsUntilDone: 3 });
  db = createPool(config.db.url, 4);
  prisma = createPrisma(db);
  workers = await createQueueWorkers({
    connection: env.nativeConnection,
    namespace: namespaceOf(env),
    deps: { store: storeOn(db), cfportalBaseUrl: sim.url, cfportalAccounts: { slot: `test-${suffix}`, configured: credentials } },
    queues: CF_QUEUES,
  });
  runs = [...workers.values()].map((w) => w.run());
}, 240_000);

afterAll(async () => {
  for (const w of workers?.values() ?? []) w.shutdown();
  await Promise.allSettled(runs ?? []);
  await prisma?.$disconnect();
  await db?.end();
  await env?.teardown();
  await sim?.close();
}, 60_000);

test('an extract is valid 30 days from its issue on the workflow clock; then a new order is the next version', async () => {
  const u = someUats(1, 20)[0];
  const parcel = { nrCadastral: freshCadastral(1), siruta: u.siruta, workspacePk: u.workspacePk, uatName: u.name, userId: `test-${suffix}`, adminOrderedBy: null };
  const orderId = ulid();
  const [row] = await createBatch(prisma, { orderId, account: credentials.username, parcels: [parcel], force: false, accountInUse });
  expect(row.version).toBe(1);

  const realStart = Date.now();
  // Six hours between polls: the portal answers `processing` three times, so 18 h pass in the workflow.
  const result = await env.client.workflow.execute<typeof cfOrderBatch>('cfOrderBatch', {
    taskQueue: TaskQueue.store,
    workflowId: `cf-order-batch:${credentials.username}:${orderId}`,
    args: [{ orderId, account: credentials.username, pollIntervalMs: 6 * HOUR }],
  });
  expect(result).toMatchObject({ orderId, completed: 1, reconciledSubmit: false });

  const e = (await getExtract(prisma, row.id))!;
  expect(e.status).toBe('completed');
  const issued = e.issuedAt!.getTime();
  expect(issued).toBeGreaterThanOrEqual(realStart + 18 * HOUR);
  expect(e.expiresAt!.getTime() - issued).toBe(CF_VALIDITY_MS);
  expect(uiState(e.status, e.expiresAt, new Date(issued + CF_VALIDITY_MS - 1))).toBe('valid');
  expect(uiState(e.status, e.expiresAt, new Date(issued + CF_VALIDITY_MS))).toBe('expired');

  // 29 days on: still valid, a new order is a catalog hit.
  await expect(
    createBatch(prisma, { orderId: ulid(), account: credentials.username, parcels: [parcel], force: false, now: new Date(issued + 29 * 24 * HOUR), accountInUse }),
  ).rejects.toMatchObject({ code: 'catalog_hit', status: 409 });
  // 30 days on: expired, accepted without force as version 2.
  const [again] = await createBatch(prisma, {
    orderId: ulid(),
    account: credentials.username,
    parcels: [parcel],
    force: false,
    now: new Date(issued + CF_VALIDITY_MS),
    accountInUse,
  });
  expect(again.version).toBe(2);
  await prisma.cfExtract.deleteMany({ where: { orderId: again.orderId } });
}, 240_000);
