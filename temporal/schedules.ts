/**
 * Temporal schedules replace cron (ARCHITECTURE.md). The list below is the single declaration of
 * every periodic job: which job of the job table (temporal/common/jobTable.ts, whose record gives
 * the workflow and queue), the schedule's id scope, the input, and when; `ensureSchedules` makes
 * the server match it at start-up:
 *   - missing schedule  → created;
 *   - changed declaration → updated in place (pause state and history kept);
 *   - unchanged → left alone.
 * "Changed" is decided by a fingerprint of the declaration stored in the action's memo, because
 * the server normalises specs (calendars become ranges) and a structural compare would be brittle.
 * Running it twice or from two processes at once is safe: a create race ends in
 * ScheduleAlreadyRunning, which falls through to the update check.
 */
import { createHash } from 'node:crypto';
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type CalendarSpec,
  type Client,
  type IntervalSpec,
} from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { JobWorkflows } from '../domain/jobWorkflows';
import { JOBS, type JobKind, type JobSpec } from './common/jobTable';
import type { TaskQueueName } from './common/queues';
import { singletonWorkflowId } from './ids';
import type { JobInput } from './jobs';

/** Every schedule fires on Romanian wall-clock time (DST included). */
export const SCHEDULE_TIME_ZONE = 'Europe/Bucharest';

export type WorkflowName = keyof JobWorkflows;

/** When a schedule fires and what it does when a run is late or still going. */
export interface ScheduleTiming {
  /** Shown in the Web UI next to the schedule. */
  description: string;
  calendars?: CalendarSpec[];
  intervals?: IntervalSpec[];
  /** What happens when the previous run is still going; default SKIP (periodic jobs never pile up). */
  overlap?: ScheduleOverlapPolicy;
  /** How late a missed run (server down) may still be started; default 10 minutes. */
  catchupWindow?: Duration;
  workflowRunTimeout?: Duration;
}

export interface ScheduleDeclaration extends ScheduleTiming {
  /** The job-table record it starts (temporal/common/jobTable.ts). */
  kind: JobKind;
  /** `<kind>:<scope>`; also the id of the workflows it starts (Temporal appends the time). */
  id: string;
  /** From the record: its workflow and queue. */
  workflowType: WorkflowName;
  taskQueue: TaskQueueName;
  /** The input, as `start` passes it (none: no argument). */
  args: unknown[];
}

/**
 * A schedule of `kind`'s job: its workflow and queue from the job table, its id `<kind>:<scope>`
 * (a scope of the schedule's own, so its runs never take a started job's id), its input as the
 * one argument, as `start` gives it. Its runs carry no search attributes: Temporal starts them,
 * not `start`, so they hold no lock (docs/architecture.md "Jobs").
 */
function scheduled<K extends JobKind>(kind: K, scope: string, input: JobInput<K>, timing: ScheduleTiming): ScheduleDeclaration {
  const spec: JobSpec = JOBS[kind];
  return {
    kind,
    id: singletonWorkflowId(kind, scope),
    workflowType: spec.workflow as WorkflowName,
    taskQueue: spec.queue,
    args: input === undefined ? [] : [input],
    ...timing,
  };
}

export const schedules: readonly ScheduleDeclaration[] = [
  scheduled('session-housekeeping', 'global', undefined, {
    description: 'Șterge sesiunile expirate (app_sessions), în fiecare oră',
    // Minute 7, not 0: keeps clear of the top-of-hour burst of other jobs.
    calendars: [{ minute: 7, hour: '*', comment: 'hourly at :07' }],
    workflowRunTimeout: '10 minutes',
  }),
  // Spec 3.1 / spec 8 "portal health ping": every 3 minutes, counting consecutive failures.
  scheduled('portal-health', 'global', undefined, {
    description: 'Verifică disponibilitatea portalului de cadastru (mentenanță), la fiecare 3 minute',
    intervals: [{ every: '3 minutes' }],
    workflowRunTimeout: '2 minutes',
    catchupWindow: '1 minute',
  }),
  // Spec 8 "auto-refresh window": weekdays 01:00 to 05:00, staggered (the workflow spaces UATs
  // 30 s apart and stops at the window's end; least recently synced UATs go first).
  scheduled('auto-refresh', 'nightly', {}, {
    description: 'Reîmprospătarea automată a UAT-urilor sincronizate, în nopțile lucrătoare 01:00–05:00',
    calendars: [{ dayOfWeek: [{ start: 'MONDAY', end: 'FRIDAY' }], hour: 1, minute: 0, comment: 'weekdays 01:00' }],
    workflowRunTimeout: '255 minutes',
  }),
  // Mails whose delivery start was lost (domain/notifications/outbox.ts) go out within minutes.
  scheduled('mail-outbox-sweep', 'global', undefined, {
    description: 'Repornește livrarea e-mailurilor rămase în coada de trimitere, la fiecare 2 minute',
    intervals: [{ every: '2 minutes' }],
    workflowRunTimeout: '2 minutes',
    catchupWindow: '1 minute',
  }),
  // CONTRACT.md section 5: the daily digest at 07:00 Romanian time. The schedule's time zone
  // keeps it at 07:00 local across DST (05:00 UTC in winter, 04:00 UTC in summer); 07:00 is
  // never inside a DST jump (03:00-04:00), so no day is skipped or doubled.
  scheduled('daily-digest', 'global', undefined, {
    description: 'Rezumatul zilnic pe e-mail, la 07:00 (ora României)',
    calendars: [{ hour: 7, minute: 0, comment: 'daily 07:00 Europe/Bucharest' }],
    workflowRunTimeout: '30 minutes',
    // A server down at 07:00 still sends the digest if it is back within two hours.
    catchupWindow: '2 hours',
  }),
  // Issue 17 / spec 4.5 status-check: weekdays, hourly from 08:00 to 18:00 Bucharest time.
  scheduled('registry-status-check', 'hourly', undefined, {
    description: 'Verifică starea cererilor urmărite la autoritatea locală, în zilele lucrătoare, din oră în oră 08:00–18:00',
    calendars: [{ dayOfWeek: [{ start: 'MONDAY', end: 'FRIDAY' }], hour: [{ start: 8, end: 18 }], minute: 0, comment: 'weekdays 08:00-18:00 hourly' }],
    workflowRunTimeout: '50 minutes',
  }),
  // Spec 2.6 / issue 21: due UATs of the sync rules, every 15 minutes (docs/scheduling.md).
  scheduled('sync-rule-scheduler', 'global', undefined, {
    description: 'Pornește sincronizările UAT datorate după regulile de sincronizare, la fiecare 15 minute',
    intervals: [{ every: '15 minutes' }],
    workflowRunTimeout: '10 minutes',
    catchupWindow: '5 minutes',
  }),
  // Spec 3.4 / spec 8: the weekend deep sync session starts with each window night (Friday,
  // Saturday, Sunday 23:00); a session already running (waiting for this window) is kept.
  scheduled('weekend-sync-kick', 'nightly', undefined, {
    description: 'Pornește sesiunea de sincronizare de weekend, vineri, sâmbătă și duminică la 23:00',
    calendars: [{ dayOfWeek: ['FRIDAY', 'SATURDAY', 'SUNDAY'], hour: 23, minute: 0, comment: 'weekend nights 23:00' }],
    workflowRunTimeout: '5 minutes',
    catchupWindow: '4 hours',
  }),
  // Issue 41: the nightly backup (full on the first night of a week without one, else
  // differential; docs/operations.md "Backups"), at 02:30, clear of the auto-refresh's UATs.
  scheduled('backup-nightly', 'nightly', undefined, {
    description: 'Copia de siguranță a bazei de date și a fișierelor, în fiecare noapte la 02:30',
    calendars: [{ hour: 2, minute: 30, comment: 'daily 02:30 Europe/Bucharest' }],
    workflowRunTimeout: '5 minutes',
    catchupWindow: '6 hours',
  }),
  // A late backup (older than BACKUP_MAX_AGE_HOURS, 26 h) is told to the administrators.
  scheduled('backup-watch', 'hourly', undefined, {
    description: 'Verifică vârsta ultimei copii de siguranță, din oră în oră',
    calendars: [{ minute: 45, hour: '*', comment: 'hourly at :45' }],
    workflowRunTimeout: '5 minutes',
  }),
];

export type EnsureOutcome = 'created' | 'updated' | 'unchanged';

const FINGERPRINT_MEMO_KEY = 'scheduleFingerprint';

/** Stable JSON: object keys sorted, so the fingerprint does not depend on literal key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function compile(decl: ScheduleDeclaration) {
  const body = {
    spec: {
      calendars: decl.calendars,
      intervals: decl.intervals,
      timezone: SCHEDULE_TIME_ZONE,
    },
    action: {
      type: 'startWorkflow' as const,
      workflowType: decl.workflowType,
      workflowId: decl.id,
      taskQueue: decl.taskQueue,
      args: decl.args,
      workflowRunTimeout: decl.workflowRunTimeout,
    },
    policies: {
      overlap: decl.overlap ?? ScheduleOverlapPolicy.SKIP,
      catchupWindow: decl.catchupWindow ?? '10 minutes',
    },
    note: decl.description,
  };
  const fingerprint = createHash('sha256').update(canonical(body)).digest('hex').slice(0, 16);
  return {
    spec: body.spec,
    action: { ...body.action, memo: { [FINGERPRINT_MEMO_KEY]: fingerprint } },
    policies: body.policies,
    note: body.note,
    fingerprint,
  };
}

async function ensureOne(client: Client, decl: ScheduleDeclaration): Promise<EnsureOutcome> {
  const c = compile(decl);
  try {
    await client.schedule.create({
      scheduleId: decl.id,
      spec: c.spec,
      action: c.action,
      policies: c.policies,
      state: { note: c.note },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(decl.id);
  let current;
  try {
    current = await handle.describe();
  } catch (err) {
    // Deleted between our create attempt and now (an operator, a concurrent test): try again.
    if (err instanceof ScheduleNotFoundError) return ensureOne(client, decl);
    throw err;
  }
  if (current.action.memo?.[FINGERPRINT_MEMO_KEY] === c.fingerprint) return 'unchanged';
  await handle.update((prev) => ({
    spec: c.spec,
    action: c.action,
    policies: c.policies,
    // An operator's pause (and its note) survives a redeploy; otherwise show the description.
    state: prev.state.paused ? prev.state : { ...prev.state, note: c.note },
  }));
  return 'updated';
}

/**
 * Makes the server's schedules match `declarations` (default: the list above). Returns what was
 * done per schedule id, for the start-up log. Schedules not in the list are left untouched.
 */
export async function ensureSchedules(
  client: Client,
  declarations: readonly ScheduleDeclaration[] = schedules,
): Promise<Record<string, EnsureOutcome>> {
  const out: Record<string, EnsureOutcome> = {};
  for (const decl of declarations) out[decl.id] = await ensureOne(client, decl);
  return out;
}
