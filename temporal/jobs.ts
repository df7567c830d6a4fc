/**
 * The one module that starts and observes jobs (every area's routes, Remix loaders and monitors
 * use it): the job table's `start` (temporal/common/jobTable.ts), job ids (temporal/ids.ts), "one
 * at a time" per resource (the lock's workflow id, which Temporal keeps unique), search
 * attributes, the 409s, and a job's progress through the one typed `progress` query of
 * temporal/common/progress.ts (its result or failure within the retention of spec 3.3 once
 * closed, the innermost failure message from temporal/common/failures.ts; 404 after that).
 */
import { failureMessage } from './common/failures';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { errors } from '../domain/errors';
import { ownerOrAdmin, type Reader } from '../domain/auth/rules';
import { PORTAL_JOB_KINDS, percentOf, progressStillKept, recordedStartRuns, type JobProgress, type PortalJobKind, type RecordedStartState } from '../domain/landreg/rules';
import type { PortalJobStart, PortalStartRecords, RecordedStart } from '../domain/landreg/service';
import { config } from '../domain/config';
import { countOf } from '../domain/text/plural';
import { childLogger } from '../domain/log';
import { getTemporalClient } from './client';
import { jobWorkflowId, parseWorkflowId, singletonWorkflowId } from './ids';
import { jobSearchAttributes } from './common/searchAttributes';
import type { JobWorkflows } from '../domain/jobWorkflows';
import { progressQuery, type ProgressState } from './common/progress';
import { JOBS, jobIdOfRun, lockOf, lockWorkflowId, scopeOf, sirutaOfJob, workflowIdOfJob, type JobKind, type JobSpec, type StartableKind } from './common/jobTable';

export interface RunningJob {
  jobId: string;
  kind: string;
  siruta?: number;
  /** The user who started it (its memo, or its start's record); none for a schedule's or a cron's. */
  startedBy?: string;
}

const log = childLogger('jobs');

const quote = (s: string) => `'${s.replace(/'/g, "\\'")}'`;

/**
 * Running jobs whose kind is one of `kinds` (optionally of one UAT), as `client` (default the
 * process's) sees them (Temporal's listing: it lags a start by a moment); the first `max` (100).
 */
export async function listRunningJobs(kinds: readonly string[], filter: { siruta?: number } = {}, client?: Client, max = 100): Promise<RunningJob[]> {
  client ??= await getTemporalClient();
  let q = `ExecutionStatus = 'Running' AND JobKind IN (${kinds.map(quote).join(', ')})`;
  if (filter.siruta !== undefined) q += ` AND Siruta = ${Math.trunc(filter.siruta)}`;
  const out: RunningJob[] = [];
  for await (const wf of client.workflow.list({ query: q })) {
    const jobId = jobIdOfRun(wf);
    const kind = parseWorkflowId(jobId)?.kind ?? 'unknown';
    const siruta = wf.searchAttributes?.Siruta?.[0];
    const startedBy = jobStartedBy(wf);
    out.push({ jobId, kind, ...(typeof siruta === 'number' ? { siruta } : {}), ...(startedBy ? { startedBy } : {}) });
    if (out.length >= max) break;
  }
  return out;
}

/**
 * Sync and export jobs that keep the portal session in use (spec 3.1 disconnect rule): those
 * Temporal lists, and those started a moment ago that its listing does not show yet. Each start is
 * recorded just before it happens (`start`, `starts`: the store's portal_job_starts); a recent
 * record the listing lacks is asked of Temporal by id, which is strongly consistent
 * (recordedStartRuns decides). With the records unreadable (the database away) the listing alone
 * answers, as before they existed. The services get it through temporal/services.ts.
 */
export async function runningPortalJobs(starts: PortalStartRecords, client?: Client, max?: number): Promise<RunningJob[]> {
  client ??= await getTemporalClient();
  const [listed, recent] = await Promise.all([
    listRunningJobs(PORTAL_JOB_KINDS, {}, client, max),
    starts.recent(client.options.namespace).catch((err: unknown) => {
      log.warn({ err: (err as Error).message }, 'recent portal job starts unreadable; the disconnect rule reads Temporal’s listing alone');
      return [];
    }),
  ]);
  const listedIds = new Set(listed.map((j) => j.jobId));
  const unlisted = recent.filter((s) => !listedIds.has(s.jobId));
  const states = await Promise.all(unlisted.map((s) => recordedStartState(client, s)));
  const starting = unlisted.filter((s, i) => recordedStartRuns(states[i], s.ageMs));
  return [
    ...listed,
    ...starting.map((s) => ({ jobId: s.jobId, kind: s.kind, ...(s.siruta !== undefined ? { siruta: s.siruta } : {}), ...(s.startedBy ? { startedBy: s.startedBy } : {}) })),
  ];
}

/**
 * A user's start of a portal job past PORTAL_JOBS_PER_USER of theirs running is refused (429):
 * each start waits its turn in the portal's queue, so one user's row of starts for many UATs
 * would hold everyone else's behind it for hours. Counted after this start's own record is
 * written, from the records and Temporal's listing (runningPortalJobs): two starts on different
 * resources racing for the last place each see the other's record, so neither passes the cap
 * (both may be refused; the answer says to retry).
 */
async function withinUserPortalJobs(client: Client, starts: PortalStartRecords, startedBy: string, workflowId: string): Promise<void> {
  const cap = config.limits.portalJobsPerUser;
  // The whole listing (the count must not stop at the first hundred of everyone's jobs), by
  // resource: a start on a resource the user already holds (a double click) is not one more job
  // but the 409 naming the running one, which the start itself answers.
  const held = new Set(
    (await runningPortalJobs(starts, client, Number.MAX_SAFE_INTEGER)).filter((j) => j.startedBy === startedBy).map((j) => workflowIdOfJob(j.jobId)),
  );
  held.delete(workflowId);
  if (held.size >= cap) {
    throw errors.rateLimited(
      PORTAL_JOBS_RETRY_AFTER_S,
      `Aveți deja ${countOf(held.size, 'lucrare', 'lucrări')} cu portalul în curs (sincronizări sau exporturi); cel mult ${cap} o dată. Așteptați să se termine una, apoi reîncercați.`,
    );
  }
}

const PORTAL_JOBS_RETRY_AFTER_S = 30;

/** What Temporal says of a recorded start's job, asked by its workflow id. */
async function recordedStartState(client: Client, s: RecordedStart): Promise<RecordedStartState> {
  try {
    const desc = await client.workflow.getHandle(s.workflowId).describe();
    if (jobIdOfRun(desc) !== s.jobId) return 'unknown';
    return desc.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'unknown';
    throw err;
  }
}

type WorkflowName = keyof JobWorkflows;

/** The workflow a job of `kind` runs, as domain/jobWorkflows.ts types it (a record naming no workflow there fails to compile here). */
export type JobWorkflow<K extends JobKind> = JobWorkflows[(typeof JOBS)[K]['workflow']];

/** What a job of `kind` takes: its workflow's first argument. */
export type JobInput<K extends JobKind> = Parameters<JobWorkflow<K>>[0];

export interface StartOptions {
  /** A rule that may refuse the start (throws its 409), checked just before it. */
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
  /** The client that starts it (default the process's): a test's own, e.g. a time-skipping environment's. */
  client?: Client;
}

/**
 * A portal job's start (a sync, an export) also takes the store's records of such starts (the
 * landreg service's `portalStarts`): spec 3.1's disconnect rule sees the job from its start on
 * (runningPortalJobs).
 */
export type StartOptionsOf<K extends JobKind> = K extends PortalJobKind ? StartOptions & { portalStarts: PortalStartRecords } : StartOptions;

export interface StartedJob<K extends JobKind> {
  jobId: string;
  handle: WorkflowHandle<JobWorkflow<K>>;
  /** False when `existing: 'accept'` found the singleton running. */
  started: boolean;
}

/**
 * One workflow start of the record: its queue, workflow id (a lock's, with the job id in the
 * memo), arguments, search attributes and starter; a queue kind with its signal. A lock's id is
 * refused while a run holds it (conflict policy FAIL) and reused once that run closed. Answers
 * the run's id (none for a signal-with-start).
 */
async function launch(client: Client, kind: JobKind, input: unknown, ids: { jobId: string; workflowId: string }, o: StartOptions): Promise<string | undefined> {
  const spec: JobSpec = JOBS[kind];
  const memo = { ...(ids.workflowId !== ids.jobId ? { jobId: ids.jobId } : {}), ...(o.startedBy ? { startedBy: o.startedBy } : {}) };
  const options = {
    taskQueue: spec.queue,
    workflowId: ids.workflowId,
    args: (input === undefined ? [] : [input]) as never,
    typedSearchAttributes: jobSearchAttributes(kind, sirutaOfJob(kind, input)),
    ...(Object.keys(memo).length ? { memo } : {}),
    ...(spec.lock ? { workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL, workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE } : {}),
  };
  const workflowType = spec.workflow as WorkflowName;
  if (spec.signal) {
    await client.workflow.signalWithStart<(...args: unknown[]) => Promise<unknown>, unknown[]>(workflowType, {
      ...options,
      signal: spec.signal,
      signalArgs: o.signalArgs ?? [],
    });
    return undefined;
  }
  return (await client.workflow.start(workflowType, options)).firstExecutionRunId;
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

/**
 * The job running under `workflowId` (a lock's), or null when none runs: a strongly consistent
 * describe, so a run started a moment ago is found.
 */
async function runningJobUnder(client: Client, workflowId: string): Promise<string | null> {
  try {
    const desc = await client.workflow.getHandle(workflowId).describe();
    return desc.status.name === 'RUNNING' ? jobIdOfRun(desc) : null;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/** A start refused because the id was taken may find the holder closed before it is named: it is tried again, this many times in all. */
const START_ATTEMPTS = 3;

/**
 * Starts a job of the table (temporal/common/jobTable.ts): its workflow, queue, id, search
 * attributes, and "one at a time" on the resource its input locks (the lock is the workflow id,
 * which Temporal refuses while a run holds it). 409 `already_running` (with the running job's
 * id) when a job of any kind holds that resource, or the singleton runs (unless `existing:
 * 'accept'`). A queue kind's start delivers its signal (signal-with-start), so two racing
 * callers never start two queues. The one starter of routes, pages, the schedules' activities,
 * the mail dispatcher and the tile monitor; parent workflows go through workflows/childJobs.ts,
 * which starts children under the same lock ids.
 */
export async function start<K extends StartableKind>(
  kind: K,
  input: JobInput<K>,
  ...[options]: K extends PortalJobKind ? [StartOptionsOf<K>] : [StartOptions?]
): Promise<StartedJob<K>> {
  const o: StartOptions & { portalStarts?: PortalStartRecords } = options ?? {};
  const client = o.client ?? (await getTemporalClient());
  const spec: JobSpec = JOBS[kind];
  const scope = scopeOf(kind, input);
  const conflict = o.conflict ?? alreadyRunning;
  const lock = lockOf(kind, input);
  const jobId = o.jobId ?? (spec.singleton ? singletonWorkflowId(kind, scope) : jobWorkflowId(kind, scope));
  const workflowId = lock ? lockWorkflowId(lock) : jobId;
  await o.precondition?.();
  const starts = o.portalStarts;
  const recorded = starts !== undefined && (await recordStart(client, starts, { jobId, workflowId, kind, siruta: sirutaOfJob(kind, input), startedBy: o.startedBy }));
  try {
    if (starts && o.startedBy) await withinUserPortalJobs(client, starts, o.startedBy, workflowId);
    for (let attempt = 1; ; attempt++) {
      try {
        const runId = await launch(client, kind, input, { jobId, workflowId }, o);
        return { jobId, handle: client.workflow.getHandle<JobWorkflow<K>>(workflowId, lock ? runId : undefined), started: true };
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        if (!lock) {
          if (o.existing === 'accept') return { jobId, handle: client.workflow.getHandle<JobWorkflow<K>>(jobId), started: false };
          throw conflict(jobId);
        }
        const holder = await runningJobUnder(client, workflowId);
        if (holder !== null || attempt >= START_ATTEMPTS) throw conflict(holder ?? workflowId);
      }
    }
  } catch (err) {
    if (recorded) await starts.forget(client.options.namespace, jobId).catch(() => undefined);
    throw err;
  }
}

/**
 * A portal job's start recorded before it happens (runningPortalJobs). The record is a help to
 * the disconnect rule, not a condition of the job: a start goes on without it (the database away)
 * and the rule then reads Temporal's listing alone. True when this call made the record.
 */
async function recordStart(client: Client, starts: PortalStartRecords, s: PortalJobStart): Promise<boolean> {
  try {
    return await starts.record(client.options.namespace, s);
  } catch (err) {
    log.warn({ err: (err as Error).message, jobId: s.jobId }, 'portal job start not recorded; the disconnect rule sees it once Temporal lists it');
    return false;
  }
}

/**
 * For a parent workflow (the activity behind workflows/childJobs.ts, on the worker's client):
 * the job holding each input's resource, or null, asked by the lock's workflow id. A parent that
 * acts on many resources without starting a child job on each (the county refresh records its
 * unchanged UATs at once) asks about all; one whose child start was refused learns who holds it.
 */
export async function jobsHolding(kind: JobKind, inputs: readonly unknown[]): Promise<Array<string | null>> {
  const client = await getTemporalClient();
  return Promise.all(
    inputs.map((input) => {
      const lock = lockOf(kind, input);
      return lock ? runningJobUnder(client, lockWorkflowId(lock)) : null;
    }),
  );
}

export function alreadyRunning(jobId: string) {
  return errors.conflict('already_running', 'O sincronizare identică rulează deja.', { jobId, progressUrl: progressUrl(jobId) });
}

/** Whether a workflow with this exact id is running now (as `client`, default the process's, sees it). */
export async function isRunning(workflowId: string, client?: Client): Promise<boolean> {
  return (await runningJobUnder(client ?? (await getTemporalClient()), workflowId)) !== null;
}

/**
 * The run of a job: under a lock's workflow id, the latest run when it is this job's (strongly
 * consistent, so a job just started is found), else the id's earlier run that Temporal lists
 * with this job id in its memo; null when Temporal knows none.
 */
export async function jobHandle(jobId: string, client?: Client): Promise<WorkflowHandle | null> {
  client ??= await getTemporalClient();
  const workflowId = workflowIdOfJob(jobId);
  if (workflowId === jobId) return client.workflow.getHandle(jobId);
  try {
    const latest = await client.workflow.getHandle(workflowId).describe();
    if (jobIdOfRun(latest) === jobId) return client.workflow.getHandle(workflowId, latest.runId);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
  for await (const wf of client.workflow.list({ query: `WorkflowId = ${quote(workflowId)}` })) {
    if (jobIdOfRun(wf) === jobId) return client.workflow.getHandle(workflowId, wf.runId);
  }
  return null;
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
  const handle = await jobHandle(jobId, client);
  if (!handle) return null;
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
