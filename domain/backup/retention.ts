/**
 * Which backups to keep (grandfather-father-son) and which type the next one is. Pure, so the
 * nightly job and its tests share them. Days, weeks and months are UTC calendar periods.
 */
import type { BackupType } from './jobTypes';

export interface RetentionPolicy {
  daily: number;
  weekly: number;
  monthly: number;
}

export interface BackupSet {
  label: string;
  type: BackupType;
  endedAt: string;
  /** The set it depends on (a diff's full). */
  prior: string | null;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const month = (d: Date) => d.toISOString().slice(0, 7);
/** ISO week `YYYY-Www`: weeks start on Monday, week 1 holds the year's first Thursday. */
export function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  t.setUTCDate(t.getUTCDate() + 3 - ((t.getUTCDay() + 6) % 7));
  const yearStart = new Date(Date.UTC(t.getUTCFullYear(), 0, 4));
  const week = 1 + Math.round(((t.getTime() - yearStart.getTime()) / 86_400_000 - 3 + ((yearStart.getUTCDay() + 6) % 7)) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/**
 * The labels to keep: the newest backup of each of the last `daily` days that have one, of the
 * last `weekly` weeks and of the last `monthly` months, the newest backup always, and every set a
 * kept one depends on (a diff is useless without its full).
 */
export function backupsToKeep(sets: readonly BackupSet[], policy: RetentionPolicy): Set<string> {
  const newestFirst = [...sets].sort((a, b) => b.endedAt.localeCompare(a.endedAt));
  const keep = new Set<string>();
  if (newestFirst[0]) keep.add(newestFirst[0].label);
  for (const [period, count] of [[day, policy.daily], [isoWeek, policy.weekly], [month, policy.monthly]] as const) {
    const seen = new Set<string>();
    for (const s of newestFirst) {
      const p = period(new Date(s.endedAt));
      if (seen.has(p)) continue;
      if (seen.size >= count) break;
      seen.add(p);
      keep.add(s.label);
    }
  }
  const byLabel = new Map(sets.map((s) => [s.label, s]));
  for (const label of [...keep]) {
    for (let prior = byLabel.get(label)?.prior; prior; prior = byLabel.get(prior)?.prior) keep.add(prior);
  }
  return keep;
}

/**
 * The sets to expire so that exactly the kept ones remain: the oldest unkept set of each chain
 * (expiring a set removes the sets that depend on it, none of which is kept).
 */
export function backupsToExpire(sets: readonly BackupSet[], policy: RetentionPolicy): string[] {
  const keep = backupsToKeep(sets, policy);
  return sets
    .filter((s) => !keep.has(s.label) && (s.prior === null || keep.has(s.prior)))
    .sort((a, b) => a.endedAt.localeCompare(b.endedAt))
    .map((s) => s.label);
}

/** A full backup once a week (none in the last 7 days), a differential against it otherwise. */
export function nextBackupType(sets: readonly BackupSet[], now: Date): 'full' | 'diff' {
  const weekAgo = now.getTime() - 7 * 86_400_000;
  return sets.some((s) => s.type === 'full' && Date.parse(s.endedAt) > weekAgo) ? 'diff' : 'full';
}

/** What retention reads of a run record (jobTypes.ts BackupRun). */
export interface RunRecord {
  id: string;
  startedAt: string;
  /** The set the run made (a done run). */
  label?: string;
}

/**
 * The run records to delete with the sets: each run of an expired set, and each run that made no
 * set (it failed, or a dead process left it running) older than every kept set. The records of
 * kept sets and the failures since the oldest of them stay, so the list shows what a restore can
 * reach and what went wrong meanwhile, and the records stay about as many as the kept sets
 * (before, one a night forever: the health check read every one of them on each poll).
 */
export function runRecordsToDrop(runs: readonly RunRecord[], sets: readonly BackupSet[], policy: RetentionPolicy): string[] {
  const kept = backupsToKeep(sets, policy);
  const horizon = sets
    .filter((s) => kept.has(s.label))
    .map((s) => s.endedAt)
    .sort()[0];
  if (!horizon) return [];
  return runs.filter((r) => (r.label ? !kept.has(r.label) : r.startedAt < horizon)).map((r) => r.id);
}
