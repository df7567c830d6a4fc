/**
 * The one module that starts and observes jobs (every area's routes, Remix loaders and monitors
 * use it): the job table's `start` (temporal/common/jobTable.ts), job ids (temporal/ids.ts), "one
 * at a time" per resource (startExclusive), search attributes, the 409s, and a job's progress
 * through the one typed `progress` query of temporal/common/progress.ts (its result or failure within the retention of spec 3.3 once closed,
 * the innermost failure message from temporal/common/failures.ts; 404 after that).
 */
import { failureMessage } from './common/failures';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Db } from '../domain/db/pool';
import { leaseToken, untilSettled } from '../domain/db/lease';
import { errors } from '../domain/errors';
import { ownerOrAdmin, type Reader } from '../domain/auth/ownership';
import { PORTAL_JOB_KINDS, percentOf, progressStillKept, type JobProgress } from '../domain/landreg/jobs';
import { getTemporalClient } from './client';
import { jobWorkflowId, parseWorkflowId, singletonWorkflowId } from './ids';
import { jobSearchAttributes } from './common/searchAttributes';
import type { JobWorkflows } from '../domain/jobWorkflows';
import { progressQuery, type ProgressState } from './common/progress';
import { JOBS, kindsLocking, lockOf, scopeOf, sirutaOfJob, type JobKind, type JobSpec, type StartableKind } from './common/jobTable';

export interface RunningJob {
  jobId: string;
  kind: string;
  siruta?: number;
}

const quote = (s: string) => `'${s.replace(/'/g, "\\'")}'`;

/** Running jobs whose kind is one of `kinds` (optionally of one UAT, or whose id starts with a prefix), as `client` (default the process's) sees them. */
export async function listRunningJobs(kinds: readonly string[], filter: { siruta?: number; idPrefix?: string } = {}, client?: Client): Promise<RunningJob[]> {
  client ??= await getTemporalClient();
  let q = `ExecutionStatus = 'Running' AND JobKind IN (${kinds.map(quote).join(', ')})`;
  if (filter.siruta !== undefined) q += ` AND Siruta = ${Math.trunc(filter.siruta)}`;
  if (filter.idPrefix) q += ` AND WorkflowId STARTS_WITH ${quote(filter.idPrefix)}`;
  const out: RunningJob[] = [];
  for await (const wf of client.workflow.list({ query: q })) {
    const kind = parseWorkflowId(wf.workflowId)?.kind ?? 'unknown';
    const siruta = wf.searchAttributes?.Siruta?.[0];
    out.push({ jobId: wf.workflowId, kind, ...(typeof siruta === 'number' ? { siruta } : {}) });
    if (out.length >= 100) break;
  }
  return out;
}

/**
 * Sync and export jobs that keep the portal session in use (spec 3.1 disconnect rule). The
 * listing lags a just-started job, so the jobs started in the last minute (the `job_slots` of
 * the caller's store, `db`) are asked about by id as well.
 */
export async function runningPortalJobs(db: Db): Promise<RunningJob[]> {
  const client = await getTemporalClient();
  const listed = await listRunningJobs(PORTAL_JOB_KINDS, {}, client);
  const recent = await db.query<{ job_id: string }>(
    `SELECT job_id FROM job_slots WHERE namespace = $1 AND job_id <> '' AND started_at > now() - interval '1 minute'`,
    [client.options.namespace],
  );
  for (const r of recent.rows) {
    const kind = parseWorkflowId(r.job_id)?.kind;
    if (kind && PORTAL_JOB_KINDS.includes(kind) && !listed.some((j) => j.jobId === r.job_id) && (await isRunning(r.job_id, client))) listed.push({ jobId: r.job_id, kind });
  }
  return listed;
}

type WorkflowName = keyof JobWorkflows;

/** The workflow a job of `kind` runs, as domain/jobWorkflows.ts types it (a record naming no workflow there fails to compile here). */
export type JobWorkflow<K extends JobKind> = JobWorkflows[(typeof JOBS)[K]['workflow']];

/** What a job of `kind` takes: its workflow's first argument. */
export type JobInput<K extends JobKind> = Parameters<JobWorkflow<K>>[0];

export interface StartOptions {
  /**
   * The caller's store (its pool, `store.pool`): a kind that locks a resource keeps its claim and
   * the id last started on it in that store's `job_slots` (docs/architecture.md "Dependencies
   * passed in").
   */
  db: Db;
  /**
   * A rule that may refuse the start (throws its 409), checked under the lock's claim with the
   * running-job check, so no second request slips between the rule and the start.
   */
  precondition?: () => Promise<void>;
  /** The requesting user: they (and administrators) read the job's progress and result; none for a schedule's or a cron's job. */
  startedBy?: string;
  /** The 409 for a running holder of the lock; default `already_running`. */
  conflict?: (jobId: string) => Error;
  /** The job id, when the input must name it (an export's download URL); default a fresh one. */
  jobId?: string;
  /**
   * A singleton already running: `refuse` (default) throws `conflict`, `accept` answers
   * `started: false` with its id (a mail's delivery, the overview build asked for twice).
   */
  existing?: 'refuse' | 'accept';
  /** A queue kind's signal arguments (the record's `signal`). */
  signalArgs?: unknown[];
  /**
   * The client that starts it and that the lock's checks ask (default the process's): a test's
   * own, e.g. a time-skipping environment's. Its namespace keys the lock's `job_slots` row.
   */
  client?: Client;
}

export interface StartedJob<K extends JobKind> {
  jobId: string;
  handle: WorkflowHandle<JobWorkflow<K>>;
  /** False when `existing: 'accept'` found the singleton running. */
  started: boolean;
}

/** One workflow start of the record: its queue, id, arguments, search attributes and starter; a queue kind with its signal. */
async function launch(client: Client, kind: JobKind, input: unknown, jobId: string, o: StartOptions): Promise<unknown> {
  const spec: JobSpec = JOBS[kind];
  const options = {
    taskQueue: spec.queue,
    workflowId: jobId,
    args: (input === undefined ? [] : [input]) as never,
    typedSearchAttributes: jobSearchAttributes(kind, sirutaOfJob(kind, input)),
    ...(o.startedBy ? { memo: { startedBy: o.startedBy } } : {}),
  };
  const workflowType = spec.workflow as WorkflowName;
  if (spec.signal) {
    return client.workflow.signalWithStart<(...args: unknown[]) => Promise<unknown>, unknown[]>(workflowType, {
      ...options,
      signal: spec.signal,
      signalArgs: o.signalArgs ?? [],
    });
  }
  return client.workflow.start(workflowType, options);
}

/** The kinds whose running singleton takes signals besides its start's (the record's `signals`). */
type SignalledKind = { [K in JobKind]: (typeof JOBS)[K] extends { signals: object } ? K : never }[JobKind];

/**
 * Sends one of the record's `signals` to the running singleton of `kind` (the weekend session's
 * wake-up when its queue or pause switch changed); false when none runs: nothing is started, the
 * next start reads afresh what the signal would have told.
 */
export async function signalJob<K extends SignalledKind>(
  kind: K,
  signal: keyof (typeof JOBS)[K]['signals'] & string,
  o: { input?: JobInput<K>; client?: Client } = {},
): Promise<boolean> {
  const client = o.client ?? (await getTemporalClient());
  const spec: JobSpec = JOBS[kind];
  try {
    await client.workflow.getHandle(singletonWorkflowId(kind, scopeOf(kind, o.input))).signal(spec.signals![signal]);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

export function progressUrl(jobId: string): string {
  return `/api/landreg/progress?jobId=${encodeURIComponent(jobId)}`;
}

/** How long one check-and-start may hold a lock's claim (a describe, a listing, a start). */
const SLOT_CLAIM_SECONDS = 30;

/**
 * A parent workflow records its child's id (claimChildJobLock) a moment before the child
 * exists; within this window an id Temporal does not know yet still holds the lock.
 */
const CHILD_START_GRACE_SECONDS = 60;

/** Running jobs of any kind holding `lock` (Temporal's listing: the kinds that lock its resource, by id prefix). */
async function runningHolders(client: Client, lock: { resource: string; id: string }): Promise<RunningJob[]> {
  const out: RunningJob[] = [];
  for (const kind of kindsLocking(lock.resource)) out.push(...(await listRunningJobs([kind], { idPrefix: `${kind}:${lock.id}:` }, client)));
  return out;
}

/**
 * "Does a job hold this resource? If not, start one" (`uat:<siruta>`, `county:<name>`…), safe
 * against concurrent requests in any number of API processes and against parent workflows
 * starting children: holding a claim on the resource's row (table job_slots, kind = resource,
 * scope = id), the job id last started on it is asked about by id — strongly consistent, unlike
 * the search-attribute listing, which lags a freshly started workflow — and the listing then
 * catches jobs started elsewhere (schedules). The claim is one conditional upsert, not a lock, so
 * no transaction stays open over the Temporal calls (issue 13); a request that finds the row
 * claimed waits for the claim to go and then sees the job it started. The row lives in the
 * caller's store (`db`), keyed by the namespace of the client asked. `conflict` builds the 409
 * for a running holder.
 */
async function startExclusive(
  db: Db,
  client: Client,
  lock: { resource: string; id: string },
  launch: () => Promise<string>,
  conflict: (jobId: string) => Error,
): Promise<string> {
  const namespace = client.options.namespace;
  const holder = leaseToken();
  return untilSettled(async () => {
    const claimed = await db.query<{ job_id: string; pending: boolean }>(
      `INSERT INTO job_slots (namespace, kind, scope, job_id, claim, claim_until) VALUES ($6, $1, $2, '', $3, now() + make_interval(secs => $4))
       ON CONFLICT (namespace, kind, scope) DO UPDATE SET claim = EXCLUDED.claim, claim_until = EXCLUDED.claim_until
        WHERE job_slots.claim IS NULL OR job_slots.claim_until < now()
       RETURNING job_id, started_at > now() - make_interval(secs => $5) AS pending`,
      [lock.resource, lock.id, holder, SLOT_CLAIM_SECONDS, CHILD_START_GRACE_SECONDS, namespace],
    );
    if (!claimed.rows[0]) return undefined;
    let jobId: string | undefined;
    try {
      const last = claimed.rows[0];
      if (last.job_id && (await runningOrStarting(client, last.job_id, last.pending))) throw conflict(last.job_id);
      const running = await runningHolders(client, lock);
      if (running.length) throw conflict(running[0].jobId);
      jobId = await launch();
      return jobId;
    } finally {
      await db.query(
        `UPDATE job_slots SET job_id = COALESCE($4, job_id), started_at = CASE WHEN $4::text IS NULL THEN started_at ELSE now() END,
                claim = NULL, claim_until = NULL
          WHERE namespace = $5 AND kind = $1 AND scope = $2 AND claim = $3`,
        [lock.resource, lock.id, holder, jobId ?? null, namespace],
      );
    }
  });
}

/** Running, or just recorded by a parent workflow whose child Temporal does not show yet. */
async function runningOrStarting(client: Client, jobId: string, recentlyRecorded: boolean): Promise<boolean> {
  const status = await executionStatus(client, jobId);
  return status === 'RUNNING' || (status === null && recentlyRecorded);
}

/**
 * Starts a job of the table (temporal/common/jobTable.ts): its workflow, queue, id, search
 * attributes, and "one at a time" on the resource its input locks. 409 `already_running` (with
 * the running job's id) when a job of any kind holds that resource, or the singleton runs (unless
 * `existing: 'accept'`). A queue kind's start delivers its signal (signal-with-start), so two
 * racing callers never start two queues. The one starter of routes, pages, the schedules'
 * activities, the mail dispatcher and the tile monitor; parent workflows go through
 * workflows/childJobs.ts, which claims the same lock.
 */
export async function start<K extends StartableKind>(kind: K, input: JobInput<K>, o: StartOptions): Promise<StartedJob<K>> {
  const client = o.client ?? (await getTemporalClient());
  const spec: JobSpec = JOBS[kind];
  const scope = scopeOf(kind, input);
  const conflict = o.conflict ?? alreadyRunning;
  const lock = lockOf(kind, input);
  if (spec.singleton || !lock) {
    const jobId = o.jobId ?? (spec.singleton ? singletonWorkflowId(kind, scope) : jobWorkflowId(kind, scope));
    await o.precondition?.();
    try {
      await launch(client, kind, input, jobId, o);
      return { jobId, handle: client.workflow.getHandle<JobWorkflow<K>>(jobId), started: true };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      if (o.existing === 'accept') return { jobId, handle: client.workflow.getHandle<JobWorkflow<K>>(jobId), started: false };
      throw conflict(jobId);
    }
  }
  const jobId = await startExclusive(
    o.db,
    client,
    lock,
    async () => {
      const id = o.jobId ?? jobWorkflowId(kind, scope);
      await o.precondition?.();
      try {
        await launch(client, kind, input, id, o);
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) throw conflict(id);
        throw err;
      }
      return id;
    },
    conflict,
  );
  return { jobId, handle: client.workflow.getHandle<JobWorkflow<K>>(jobId), started: true };
}

/**
 * A parent workflow's half of `start` (the activity behind workflows/childJobs.ts, on the
 * worker's store `db`): claims the resource `kind`'s input locks for the child id the parent is
 * about to start, or names the job that holds it. Nothing is launched here; the parent starts
 * its child next.
 */
export async function claimChildJobLock(db: Db, kind: JobKind, input: unknown, jobId: string): Promise<{ heldBy: string | null }> {
  const lock = lockOf(kind, input);
  if (!lock) return { heldBy: null };
  try {
    await startExclusive(db, await getTemporalClient(), lock, async () => jobId, (running) => new HeldBy(running));
    return { heldBy: null };
  } catch (err) {
    if (err instanceof HeldBy) return { heldBy: err.jobId };
    throw err;
  }
}

/**
 * The parent's other half: its child ended (or never started), so the resource is free again
 * without asking Temporal about the child — a worker whose client is not the parent's server (a
 * time-skipping test) would never find it and hold the lock for the grace period.
 */
export async function releaseChildJobLock(db: Db, kind: JobKind, input: unknown, jobId: string): Promise<void> {
  const lock = lockOf(kind, input);
  if (!lock) return;
  const { namespace } = (await getTemporalClient()).options;
  await db.query(`UPDATE job_slots SET job_id = '' WHERE namespace = $4 AND kind = $1 AND scope = $2 AND job_id = $3`, [lock.resource, lock.id, jobId, namespace]);
}

/**
 * For a parent that acts on many resources without starting a child job on each (the county
 * refresh records its unchanged UATs at once): the job holding each input's resource, or null.
 * The same two checks as the claim — the job last recorded on the resource asked about by id,
 * and the running jobs of the kinds that lock it — in one statement and one listing for all.
 */
export async function heldChildJobLocks(db: Db, kind: JobKind, inputs: readonly unknown[]): Promise<Array<string | null>> {
  const locks = inputs.map((i) => lockOf(kind, i));
  const resource = locks.find((l) => l !== null)?.resource;
  if (!resource) return inputs.map(() => null);
  const client = await getTemporalClient();
  const held = new Map<string, string>();
  const recorded = await db.query<{ scope: string; job_id: string; pending: boolean }>(
    `SELECT scope, job_id, started_at > now() - make_interval(secs => $4) AS pending FROM job_slots
      WHERE namespace = $1 AND kind = $2 AND scope = ANY($3::text[]) AND job_id <> ''`,
    [client.options.namespace, resource, locks.flatMap((l) => (l ? [l.id] : [])), CHILD_START_GRACE_SECONDS],
  );
  await Promise.all(recorded.rows.map(async (r) => (await runningOrStarting(client, r.job_id, r.pending)) && held.set(r.scope, r.job_id)));
  for await (const wf of client.workflow.list({ query: `ExecutionStatus = 'Running' AND JobKind IN (${kindsLocking(resource).map(quote).join(', ')})` })) {
    const scope = parseWorkflowId(wf.workflowId)?.scope;
    if (scope !== undefined && !held.has(scope)) held.set(scope, wf.workflowId);
  }
  return locks.map((l) => (l ? (held.get(l.id) ?? null) : null));
}

class HeldBy extends Error {
  constructor(readonly jobId: string) {
    super(`held by ${jobId}`);
  }
}

export function alreadyRunning(jobId: string) {
  return errors.conflict('already_running', 'O sincronizare identică rulează deja.', { jobId, progressUrl: progressUrl(jobId) });
}

/** Whether a workflow with this exact id is running now (as `client`, default the process's, sees it). */
export async function isRunning(workflowId: string, client?: Client): Promise<boolean> {
  return (await executionStatus(client ?? (await getTemporalClient()), workflowId)) === 'RUNNING';
}

/** The status of the latest execution with this id, or null when Temporal knows none. */
async function executionStatus(client: Client, workflowId: string): Promise<string | null> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/**
 * A query needs a worker of the workflow's queue; with none polling (a crashed or stopped worker)
 * it would hold the answer to the RPC's own deadline. `readJob` asks for a running job's progress
 * through here and falls back to what the server knows.
 */
const QUERY_DEADLINE_MS = 3_000;

async function queryProgress<D>(client: Client, handle: WorkflowHandle): Promise<ProgressState<D> | undefined> {
  try {
    return (await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(progressQuery))) as ProgressState<D>;
  } catch {
    return undefined;
  }
}


/** The user who started a job (its memo), or null for a schedule's, a cron's or an older job. */
export function jobStartedBy(desc: { memo?: Record<string, unknown> }): string | null {
  const v = desc.memo?.startedBy;
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Whether `reader` may see the job described: its starter or an administrator. */
export function mayReadJob(desc: { memo?: Record<string, unknown> }, reader: Reader): boolean {
  return ownerOrAdmin(reader, jobStartedBy(desc));
}

/** What is known of a job: Temporal's record of the execution and, while it runs, its own `progress`. */
export interface JobState<D = never, R = unknown> {
  jobId: string;
  status: 'running' | 'done' | 'failed';
  startedAt: Date;
  closedAt?: Date;
  /** Running: the workflow's answer to the one `progress` query (none when no worker answered in time). */
  progress?: ProgressState<D>;
  result?: R;
  /** Failed: the innermost failure's message (temporal/common/failures.ts). */
  error?: string;
  memo?: Record<string, unknown>;
}

/**
 * The one reader of a job (the progress route, the tile monitor, the weekend queue page): the
 * latest execution under `jobId`, its progress while it runs, its result or failure once closed;
 * null when Temporal knows none.
 */
export async function readJob<D = never, R = unknown>(jobId: string, client?: Client): Promise<JobState<D, R> | null> {
  client ??= await getTemporalClient();
  const handle = client.workflow.getHandle(jobId);
  let desc;
  try {
    desc = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
  const base = { jobId, startedAt: desc.startTime, memo: desc.memo };
  if (desc.status.name === 'RUNNING') return { ...base, status: 'running', progress: await queryProgress<D>(client, handle) };
  const closed = { ...base, closedAt: desc.closeTime };
  if (desc.status.name === 'COMPLETED') return { ...closed, status: 'done', result: (await handle.result()) as R };
  let error = desc.status.name === 'CANCELLED' ? 'Lucrarea a fost anulată.' : desc.status.name === 'TIMED_OUT' ? 'Lucrarea a depășit timpul.' : 'Lucrarea a eșuat.';
  try {
    await handle.result();
  } catch (err) {
    error = failureMessage(err);
  }
  return { ...closed, status: 'failed', error };
}

/**
 * CONTRACT.md `GET /api/landreg/progress`; 404 for unknown jobs, after the retention, and for a
 * job someone else started (a reader other than its starter or an administrator learns nothing,
 * not even that it exists).
 */
export async function jobProgress(jobId: string, reader: Reader, now = new Date()): Promise<JobProgress> {
  const parts = parseWorkflowId(jobId);
  if (!parts) throw errors.notFound('Lucrarea nu există.');
  const job = await readJob<unknown>(jobId);
  if (!job || !mayReadJob(job, reader)) throw errors.notFound('Lucrarea nu există.');
  const base = { jobId, kind: parts.kind, startedAt: job.startedAt.toISOString() };
  if (job.status === 'running') {
    const p = job.progress ?? { phase: 'starting', current: 0, total: 0, message: 'Lucrarea pornește…' };
    return { ...base, status: 'running', phase: p.phase, current: p.current, total: p.total, percent: percentOf(p.current, p.total), message: p.message };
  }
  const closedAt = job.closedAt ?? now;
  if (!progressStillKept(parts.kind, closedAt, now)) throw errors.notFound('Progresul lucrării nu mai este păstrat.');
  const finishedAt = closedAt.toISOString();
  if (job.status === 'done') {
    return { ...base, status: 'done', phase: 'done', current: 1, total: 1, percent: 100, message: 'Lucrarea s-a încheiat.', finishedAt, result: job.result };
  }
  return { ...base, status: 'failed', phase: 'failed', current: 0, total: 0, percent: 0, message: 'Lucrarea a eșuat.', finishedAt, error: job.error };
}
