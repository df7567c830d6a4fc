/**
 * The backups' retention (7 daily, 4 weekly, 6 monthly by default) and the nightly choice of a
 * full or differential backup, as pure rules over a repository's backup sets.
 */
import { backupsToExpire, backupsToKeep, isoWeek, nextBackupType, runRecordsToDrop, type BackupSet, type RunRecord } from '../../domain/backup/retention';

const POLICY = { daily: 7, weekly: 4, monthly: 6 };

/** One backup a night at 00:30 UTC for `days` nights up to `last`: a full on Sundays, else a diff of the last full. */
function nightly(days: number, last = '2026-11-28'): BackupSet[] {
  const sets: BackupSet[] = [];
  let full: string | null = null;
  const end = Date.parse(`${last}T00:30:00Z`);
  for (let i = days - 1; i >= 0; i--) {
    const at = new Date(end - i * 86_400_000);
    const label = at.toISOString().slice(0, 10);
    const isFull = full === null || at.getUTCDay() === 0;
    sets.push({ label, type: isFull ? 'full' : 'diff', endedAt: at.toISOString(), prior: isFull ? null : full });
    if (isFull) full = label;
  }
  return sets;
}

describe('backup retention', () => {
  test('ISO weeks start on Monday and the first holds the first Thursday', () => {
    expect(isoWeek(new Date('2026-11-28T12:00:00Z'))).toBe('2026-W48');
    expect(isoWeek(new Date('2026-11-30T00:10:00Z'))).toBe('2026-W49');
    expect(isoWeek(new Date('2027-01-01T12:00:00Z'))).toBe('2026-W53');
    expect(isoWeek(new Date('2026-01-01T12:00:00Z'))).toBe('2026-W01');
  });

  test('a year of nightly backups keeps 7 days, 4 weeks and 6 months, and the fulls they need', () => {
    const sets = nightly(365);
    const keep = backupsToKeep(sets, POLICY);
    const byLabel = new Map(sets.map((s) => [s.label, s]));
    // The last 7 nights.
    for (const d of ['2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28']) expect(keep.has(d)).toBe(true);
    // Newest of each of the last 6 months (month ends) and 4 weeks (Sundays).
    for (const d of ['2026-10-31', '2026-09-30', '2026-08-31', '2026-07-31', '2026-06-30']) expect(keep.has(d)).toBe(true);
    for (const d of ['2026-11-15', '2026-11-08']) expect(keep.has(d)).toBe(true);
    expect(keep.has('2026-05-31')).toBe(false);
    expect(keep.has('2026-11-10')).toBe(false);
    // Every kept differential has its full.
    for (const label of keep) {
      const prior = byLabel.get(label)!.prior;
      if (prior) expect(keep.has(prior)).toBe(true);
    }
  });

  test('the sets expired are the heads of the unkept chains; what stays is exactly the kept set', () => {
    const sets = nightly(120);
    const keep = backupsToKeep(sets, POLICY);
    const expire = backupsToExpire(sets, POLICY);
    // Simulate pgBackRest: expiring a set removes it and every set depending on it.
    const remaining = new Map(sets.map((s) => [s.label, s]));
    for (const label of expire) {
      const drop = [label];
      while (drop.length) {
        const l = drop.pop()!;
        remaining.delete(l);
        for (const s of remaining.values()) if (s.prior === l) drop.push(s.label);
      }
    }
    expect(new Set(remaining.keys())).toEqual(keep);
  });

  test('few backups are all kept, and the newest always, with its full', () => {
    const sets = nightly(3);
    expect(backupsToExpire(sets, POLICY)).toEqual([]);
    expect([...backupsToKeep(sets, { daily: 0, weekly: 0, monthly: 0 })].sort()).toEqual(['2026-11-26', '2026-11-28']);
    expect(backupsToExpire(sets, { daily: 0, weekly: 0, monthly: 0 })).toEqual(['2026-11-27']);
  });

  test('a full once a week, a differential otherwise', () => {
    expect(nextBackupType([], new Date('2026-11-28T00:30:00Z'))).toBe('full');
    const sets = nightly(3); // full on 2026-11-26
    expect(nextBackupType(sets, new Date('2026-11-29T00:30:00Z'))).toBe('diff');
    expect(nextBackupType(sets, new Date('2026-12-03T01:00:00Z'))).toBe('full');
  });

  test("a year of nightly runs keeps the kept sets' records and the failures since the oldest, nothing older", () => {
    const sets = nightly(365);
    const keep = backupsToKeep(sets, POLICY);
    // A record per night's run, and a night a month whose run failed (no set) beside it.
    const runs: RunRecord[] = [
      ...sets.map((s) => ({ id: `run-${s.label}`, startedAt: s.endedAt, label: s.label })),
      ...sets.filter((s) => s.label.endsWith('-15')).map((s) => ({ id: `failed-${s.label}`, startedAt: s.endedAt })),
      { id: 'running-now', startedAt: '2026-11-29T00:30:00Z' },
    ];
    const dropped = new Set(runRecordsToDrop(runs, sets, POLICY));
    const left = runs.filter((r) => !dropped.has(r.id)).map((r) => r.id);
    const oldestKept = [...keep].sort()[0];
    expect(left.filter((id) => id.startsWith('run-')).sort()).toEqual([...keep].map((l) => `run-${l}`).sort());
    // Failures newer than the oldest kept set stay (what went wrong meanwhile), older ones go.
    expect(left.filter((id) => id.startsWith('failed-'))).toEqual(
      sets.filter((s) => s.label.endsWith('-15') && s.label > oldestKept).map((s) => `failed-${s.label}`),
    );
    expect(left).toContain('running-now');
    expect(left.length).toBeLessThan(keep.size + 8);
    // Nothing kept yet (an empty repository): nothing dropped.
    expect(runRecordsToDrop(runs, [], POLICY)).toEqual([]);
  });
});
