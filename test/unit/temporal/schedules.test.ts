/**
 * The schedules come from the job table (temporal/schedules.ts `scheduled`), yet a running
 * server holds them under their ids and runs histories under their workflow types: a record or
 * a declaration that changed either would leave the old schedule firing beside a new one.
 */
import { schedules } from '../../../temporal/schedules';
import { JOBS } from '../../../temporal/common/jobTable';
import { parseWorkflowId } from '../../../temporal/ids';

describe('schedules from the job table', () => {
  test('keep the ids, workflow types, queues and arguments servers already hold', () => {
    expect(schedules.map((d) => [d.id, d.workflowType, d.taskQueue, d.args])).toEqual([
      ['session-housekeeping:global', 'sessionHousekeeping', 'store', []],
      ['portal-health:global', 'portalHealth', 'store', []],
      ['auto-refresh:nightly', 'autoRefresh', 'store', [{}]],
      ['mail-outbox-sweep:global', 'mailOutboxSweep', 'store', []],
      ['daily-digest:global', 'dailyDigest', 'store', []],
      ['registry-status-check:hourly', 'registryStatusCheck', 'store', []],
      ['sync-rule-scheduler:global', 'syncRuleScheduler', 'store', []],
      ['weekend-sync-kick:nightly', 'weekendSyncKick', 'store', []],
      ['backup-nightly:nightly', 'backupKick', 'store', []],
      ['backup-watch:hourly', 'backupWatch', 'store', []],
    ]);
  });

  test("a schedule's runs are its kind's: the record's workflow and queue, the kind in the id", () => {
    for (const d of schedules) {
      expect([d.workflowType, d.taskQueue]).toEqual([JOBS[d.kind].workflow, JOBS[d.kind].queue]);
      expect(parseWorkflowId(`${d.id}-2026-11-26T01:00:00Z`)).toMatchObject({ kind: d.kind, scheduledAt: '2026-11-26T01:00:00Z' });
    }
  });
});
