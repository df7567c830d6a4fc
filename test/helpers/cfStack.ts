/**
 * The CF test rig: the certificate portal simulator in-process on a free port, the real app
 * (createApp) aimed at it, real PostgreSQL, MinIO and Temporal; workers for the store, cf-orders
 * and notifications queues in the test file's own Temporal namespace (in-process, or a child
 * process that a test may kill). Parcels come from the shared reference nomenclature (county = workspacePk).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { createApp } from '../../api/app';
import { storeOn } from '../../domain/db/store';
import type { CfAccountSource } from '../../domain/cfportal/rules';
import { accountKey } from '../../domain/cfportal/session';
import { config } from '../../domain/config';
import { createPool } from '../../domain/db/pool';
import { startCfportalSimulator, type CfportalSimOptions, type CfportalSimulator } from '../../simulators/cfportal/server';
import { Nomenclature } from '../../simulators/landreg/nomenclature';
import { TaskQueue, type TaskQueueName } from '../../temporal/common/queues';
import { createQueueWorkers } from '../../workers/start';
import { createTestSessionRecord, type TestSession } from './session';
import { startWorkerChild, type WorkerChild } from './syncWorkerChild';
import { localEnv, runSuffix, namespaceOf } from './temporal';

import { until } from './wait';
import { listenApp } from './appServer';

export { until };

const run = promisify(execFile);
export const CF_QUEUES: TaskQueueName[] = [TaskQueue.store, TaskQueue.cfOrders, TaskQueue.notifications];

export interface ApiAnswer {
  status: number;
  headers: Headers;
  raw: Buffer;
  body: any;
}

export interface CfRig {
  sim: CfportalSimulator;
  env: TestWorkflowEnvironment;
  db: pg.Pool;
  suffix: string;
  base: string;
  credentials: { username: string; password: string };
  /** This run's account slot: the connected account of its API and workers, the configured one being `credentials`. */
  accounts: CfAccountSource;
  simJson<T = any>(method: string, p: string, body?: unknown): Promise<T>;
  /** A call to the app as a user: status, headers, raw bytes and the JSON body when there is one. */
  api(method: string, p: string, as: TestSession, body?: unknown): Promise<ApiAnswer>;
  /** Runs `fn` with the API of a second app on the rig whose CF routes give new batches `pollIntervalMs`. */
  withPollInterval<T>(pollIntervalMs: number, fn: (api: CfRig['api']) => Promise<T>): Promise<T>;
  /** The portal's own truth (credits, orders, cart) of the configured account or another. */
  truth(account?: string): Promise<any>;
  /** How many requests of each kind the portal received (`submit`, `submit:<account>`, …). */
  requestCounts(): Promise<Record<string, number>>;
  /** The batch's extracts once each is at its last step (stored, notified) or failed. */
  batchDone(orderId: string, as: TestSession, timeoutMs?: number): Promise<any[]>;
  /** Starts (or restarts) the workers: in-process by default, as a killable child with `child`. */
  startWorkers(child?: boolean): Promise<WorkerChild | null>;
  stop(): Promise<void>;
}

export async function startCfRig(opts: { sim?: CfportalSimOptions; pollIntervalMs?: number; listingWaitMs?: number } = {}): Promise<CfRig> {
  const suffix = runSuffix();
  // An account of this run: its queue workflow (`cf-order-queue:<account>`) is this run's own,
  // never one a previous run left polling a task queue nobody serves any more.
  const credentials = { username: `cf-${suffix}`, password: 'parola-cf' };
  const sim = await startCfportalSimulator({ port: 0, ...credentials, ...opts.sim });
  const env = await localEnv();
  const db = createPool(config.db.url, 8);
  const accounts: CfAccountSource = { slot: `test-${suffix}`, configured: credentials };
  const store = storeOn(db);
  const outside = { cfportalBaseUrl: sim.url, cfportalAccounts: accounts };
  const cf = { pollIntervalMs: opts.pollIntervalMs ?? 300, listingWaitMs: opts.listingWaitMs };
  const { server, base } = await listenApp(createApp({ store, outside, cf }));
  let inProcess: { workers: Map<TaskQueueName, Worker>; runs: Promise<void>[] } | null = null;
  let child: WorkerChild | null = null;
  const simJson: CfRig['simJson'] = async (method, p, body) => {
    const res = await fetch(`${sim.url}${p}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  const apiOf = (appBase: string): CfRig['api'] => async (method, p, as, body) => {
    const headers: Record<string, string> = { cookie: as.cookie };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${appBase}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const type = res.headers.get('content-type') ?? '';
    const raw = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, raw, body: type.includes('json') && raw.length ? JSON.parse(raw.toString('utf8')) : null };
  };
  const api = apiOf(base);
  return {
    api,
    async withPollInterval(pollIntervalMs, fn) {
      const other = await listenApp(createApp({ store, outside, cf: { ...cf, pollIntervalMs } }));
      try {
        return await fn(apiOf(other.base));
      } finally {
        await new Promise((r) => other.server.close(r));
      }
    },
    truth(account) {
      return simJson('GET', `/__sim/truth${account ? `?account=${encodeURIComponent(account)}` : ''}`);
    },
    async requestCounts() {
      return (await simJson('GET', '/__sim/requests')).counts;
    },
    async batchDone(orderId, as, timeoutMs = 120_000) {
      return until(
        `batch ${orderId} finished`,
        async () => {
          const items = (await api('GET', `/api/cfportal/orders?orderId=${orderId}`, as)).body.items as any[];
          return items.length > 0 && items.every((e) => (e.status === 'completed' && e.currentStep === 'done') || e.status === 'failed') ? items : null;
        },
        timeoutMs,
        200,
      );
    },
    sim,
    env,
    db,
    suffix,
    base,
    credentials,
    accounts,
    simJson,
    async startWorkers(asChild = false) {
      if (asChild) {
        child = await startWorkerChild({
          simUrl: config.landreg.baseUrl,
          queues: CF_QUEUES,
          cfportalUrl: sim.url,
          env: { CFPORTAL_USERNAME: credentials.username, CFPORTAL_PASSWORD: credentials.password },
          readyTimeoutMs: 120_000,
        });
        return child;
      }
      const workers = await createQueueWorkers({
        connection: env.nativeConnection,
        namespace: namespaceOf(env),
        deps: { store, cfportalBaseUrl: sim.url, cfportalAccounts: accounts },
        queues: CF_QUEUES,
      });
      inProcess = { workers, runs: [...workers.values()].map((w) => w.run()) };
      return null;
    },
    async stop() {
      await new Promise((r) => server.close(r));
      // The queue would otherwise idle 10 minutes after the run with nobody serving it.
      const queues = await db.query<{ account: string }>(`SELECT DISTINCT portal_account AS account FROM cf_extracts WHERE portal_account LIKE $1`, [
        `%${suffix}%`,
      ]);
      for (const account of new Set([accountKey(credentials.username), ...queues.rows.map((r) => r.account)])) {
        await env.client.workflow.getHandle(`cf-order-queue:${account}`).terminate('test run over').catch(() => undefined);
      }
      await db.query(`DELETE FROM cfportal_sessions WHERE id = $1`, [accounts.slot]);
      await db.query(`DELETE FROM cfportal_accounts WHERE account LIKE $1`, [`%${suffix}%`]);
      if (inProcess) {
        for (const w of inProcess.workers.values()) w.shutdown();
        await Promise.allSettled(inProcess.runs);
      }
      await child?.kill('SIGTERM');
      await store.close();
      await db.end();
      await env.teardown();
      await sim.close();
    },
  };
}

/** `count` UATs of the reference nomenclature, as (siruta, workspacePk, name). */
export function someUats(count: number, skip = 0): Array<{ siruta: number; workspacePk: number; name: string }> {
  const nom = new Nomenclature(config.landreg.simDataDir);
  const county = nom.counties[3];
  return county.uats.slice(skip, skip + count).map((u) => ({ siruta: u.siruta, workspacePk: u.workspaceId, name: u.name }));
}

/** Cadastral numbers no other run used: the test database outlives a run. */
export function freshCadastral(i: number): string {
  return `${Date.now() % 10_000_000}${String(i).padStart(2, '0')}${Math.floor(Math.random() * 90 + 10)}`;
}

export async function sessions(db: pg.Pool): Promise<Record<'dan' | 'ion' | 'ana' | 'elena' | 'ioana', TestSession>> {
  return {
    dan: await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U', db }),
    // A second ordinary user with the personal-data right (elena, on the basic panel, may not order).
    ion: await createTestSessionRecord({ email: 'ion@birou.ro', company: 'B', db }),
    ana: await createTestSessionRecord({ email: 'ana@birou.ro', company: 'B', groups: ['admin'], db }),
    elena: await createTestSessionRecord({ email: 'elena@birou.ro', company: 'B', db }),
    ioana: await createTestSessionRecord({ email: 'ioana@birou.ro', company: 'S', enrichmentScope: 'basic', db }),
  };
}

/** The text of a PDF as Ghostscript extracts it. */
export async function pdfText(bytes: Buffer): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cf-pdf-'));
  try {
    const file = path.join(dir, 'x.pdf');
    await fs.writeFile(file, bytes);
    return (await run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=txtwrite', '-o', '-', file])).stdout;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
