/**
 * Batch check of every tracked registry entry at the municipal status authority (spec 4.5
 * status-check, 6): started by `POST /api/registratura/status-check` and by the schedule
 * `registry-status-check:hourly` (weekdays 08:00-18:00 Europe/Bucharest). One activity per
 * entry, so one slow or failing page never stops the others; a real change becomes ONE
 * `status-change` notification through the notifications queue (idempotent by entry + hash).
 */
import { continueAsNew, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications';
import type { RegistryActivities } from '../activities/registry';
import { TaskQueue } from '../temporal/common/queues';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import type { RegistryStatusCheckArgs, RegistryStatusCheckResult } from '../domain/registry/jobTypes';

const registry = proxyActivities<RegistryActivities>({
  taskQueue: TaskQueue.store,
  // One page fetch (10 s timeout) and a short transaction.
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.periodic,
});

const notify = proxyActivities<NotificationActivities>({
  taskQueue: TaskQueue.notifications,
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.notify,
});

/** Entries checked at once: the authority is one municipal web server. */
const PARALLEL = 4;
/** Entries a run checks before it continues as new: about six history events an entry. */
const ENTRIES_PER_RUN = 500;

export async function registryStatusCheck(args: RegistryStatusCheckArgs = {}): Promise<RegistryStatusCheckResult> {
  const progress: ProgressState = { status: 'running', phase: 'check', current: 0, total: 0, message: 'Verificarea stărilor…' };
  setHandler(progressQuery, () => progress);
  const all = args.resume?.ids ?? (await registry.listMonitoredRegistryEntries());
  const out: RegistryStatusCheckResult = args.resume?.tally ?? { checked: 0, changed: 0, unchanged: 0, baseline: 0, errors: 0, notified: 0 };
  const perRun = Math.max(1, args.entriesPerRun ?? ENTRIES_PER_RUN);
  // Versioned: a check already running replays as one run.
  const later = all.length > perRun && patched('registry-status-continue-as-new') ? all.slice(perRun) : [];
  const ids = later.length ? all.slice(0, perRun) : all;
  const before = args.resume?.done ?? 0;
  progress.total = before + all.length;
  progress.current = before;
  let next = 0;
  const lane = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      let r;
      try {
        r = await registry.checkRegistryEntryStatus(id);
      } catch {
        out.errors++;
        progress.current++;
        continue;
      }
      out.checked++;
      if (r.outcome === 'changed') out.changed++;
      else if (r.outcome === 'unchanged') out.unchanged++;
      else if (r.outcome === 'baseline') out.baseline++;
      else if (r.outcome === 'error') out.errors++;
      if (r.notification) {
        const sent = await notify.notify(r.notification);
        if (sent.created) out.notified++;
      }
      progress.current++;
      progress.message = `${progress.current} din ${progress.total} cereri verificate`;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  if (later.length) return continueAsNew<typeof registryStatusCheck>({ ...args, resume: { ids: later, tally: out, done: before + ids.length } });
  progress.status = 'done';
  progress.phase = 'done';
  progress.message = `${out.checked} cereri verificate, ${out.changed} schimbări de stare.`;
  return out;
}
