/**
 * When the backups count as late (GET /api/health `backup`, the hourly alert): a good backup older
 * than the limit is late; a store never backed up is late only once it is older than the limit
 * (a new stack waits for its first nightly backup), and at once when its first backup failed.
 */
import type { BackupRun } from '../../domain/backup/jobTypes';
import { judgeBackups } from '../../domain/backup/runs';

const now = new Date('2026-11-28T12:00:00Z');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3600_000);
function run(status: BackupRun['status'], endedHoursAgo: number): BackupRun {
  const endedAt = hoursAgo(endedHoursAgo).toISOString();
  return { id: `r-${status}-${endedHoursAgo}`, type: 'full', startedAt: endedAt, endedAt, sizeBytes: 1000, status };
}

describe('backup freshness', () => {
  test('the newest good backup decides once there is one', () => {
    expect(judgeBackups([run('failed', 1), run('done', 3)], now, hoursAgo(1000), 26))
      .toEqual({ lastAt: hoursAgo(3).toISOString(), sizeBytes: 1000, ok: true, ageSeconds: 3 * 3600, pending: false });
    expect(judgeBackups([run('done', 27)], now, hoursAgo(2), 26)).toMatchObject({ ok: false, ageSeconds: 27 * 3600, pending: false });
  });

  test('a new store without a backup is pending, not late, until it is older than the limit', () => {
    expect(judgeBackups([], now, hoursAgo(2), 26)).toEqual({ lastAt: null, sizeBytes: null, ok: true, ageSeconds: null, pending: true });
    expect(judgeBackups([run('running', 0)], now, hoursAgo(25.9), 26)).toMatchObject({ ok: true, pending: true });
    expect(judgeBackups([], now, hoursAgo(26.1), 26)).toMatchObject({ ok: false, pending: false });
  });

  test('a failed first backup, or a store of unknown age, is late at once', () => {
    expect(judgeBackups([run('failed', 1)], now, hoursAgo(2), 26)).toMatchObject({ ok: false, pending: false, lastAt: null });
    expect(judgeBackups([], now, null, 26)).toMatchObject({ ok: false, pending: false });
  });
});
