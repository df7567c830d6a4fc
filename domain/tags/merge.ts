/**
 * Three-way merge of the tag file with the app's tags against the state both sides agreed on at
 * the last sync (CONTRACT.md section 3; docs/office.md "Tag sync"). Pure.
 *
 * A tag's identity is its project code (or, without one, its project text), phase and activity:
 * renaming `B-0123 Casa Popescu` to `B-0123 Casa Popescu-Ionescu` is a change of the same tag, any
 * other edit a removal plus an addition. Per identity, with b = base, f = file, d = app:
 *   f = d           nothing to do
 *   f = b, d ≠ b    the app changed it: push writes d into the file
 *   d = b, f ≠ b    the file changed it: pull writes f into the app
 *   otherwise       both changed it differently: a conflict, left alone until the user picks a side
 */
import { parseTagLine, type TagPath } from './tagPath';

export type SyncMode = 'pull' | 'push' | 'both';
export type Side = 'file' | 'db';

export function tagKey(t: Pick<TagPath, 'projectCode' | 'project' | 'phase' | 'activity'>): string {
  return [t.projectCode ?? `=${t.project}`, t.phase ?? '', t.activity ?? ''].join('\u0001');
}

export interface SideChanges {
  added: string[];
  removed: string[];
  changed: Array<{ from: string; to: string }>;
}

export interface SyncConflict {
  key: string;
  base: string | null;
  file: string | null;
  db: string | null;
}

export interface SyncPlan {
  /** No sync yet: the base is empty, so everything on one side only counts as added there. */
  firstSync: boolean;
  /** Changes in the tag file since the last sync (a pull brings them into the app). */
  file: SideChanges;
  /** Changes in the app since the last sync (a push writes them into the file). */
  db: SideChanges;
  conflicts: SyncConflict[];
  inSync: boolean;
}

interface KeyState {
  key: string;
  base: string | null;
  file: string | null;
  db: string | null;
}

function byKey(paths: readonly string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const p of paths) {
    const t = parseTagLine(p);
    if (!t) continue;
    const k = tagKey(t);
    if (!m.has(k)) m.set(k, t.path);
  }
  return m;
}

function states(base: readonly string[], file: readonly string[], db: readonly string[]): KeyState[] {
  const b = byKey(base);
  const f = byKey(file);
  const d = byKey(db);
  const keys = [...new Set([...f.keys(), ...d.keys(), ...b.keys()])];
  return keys.map((key) => ({ key, base: b.get(key) ?? null, file: f.get(key) ?? null, db: d.get(key) ?? null }));
}

function change(into: SideChanges, from: string | null, to: string | null): void {
  if (from === null && to !== null) into.added.push(to);
  else if (from !== null && to === null) into.removed.push(from);
  else if (from !== null && to !== null) into.changed.push({ from, to });
}

export function planSync(base: readonly string[] | null, file: readonly string[], db: readonly string[]): SyncPlan {
  const plan: SyncPlan = {
    firstSync: base === null,
    file: { added: [], removed: [], changed: [] },
    db: { added: [], removed: [], changed: [] },
    conflicts: [],
    inSync: true,
  };
  for (const s of states(base ?? [], file, db)) {
    if (s.file === s.db) continue;
    plan.inSync = false;
    if (s.file === s.base) change(plan.db, s.base, s.db);
    else if (s.db === s.base) change(plan.file, s.base, s.file);
    else plan.conflicts.push(s);
  }
  return plan;
}

export interface MergeResult {
  plan: SyncPlan;
  /** Per key, the new line of the file (null: remove); empty when the file stays as it is. */
  fileChanges: Map<string, string | null>;
  /** What to do in the app's tags. */
  dbChanges: { add: string[]; remove: string[]; rename: Array<{ from: string; to: string }> };
  /** The agreed state after applying: keys where both sides now agree; the old base elsewhere. */
  newBase: string[];
  /** Conflicts left unresolved (nothing of them is touched). */
  unresolved: SyncConflict[];
}

/**
 * What applying a plan in `mode` does, with the user's choices for conflicts (`resolutions`: key →
 * the side whose version wins; it is applied whatever the mode, as the user asked for it).
 */
export function mergeTags(
  base: readonly string[] | null,
  file: readonly string[],
  db: readonly string[],
  mode: SyncMode,
  resolutions: Readonly<Record<string, Side>> = {},
): MergeResult {
  const plan = planSync(base, file, db);
  const pull = mode === 'pull' || mode === 'both';
  const push = mode === 'push' || mode === 'both';
  const fileChanges = new Map<string, string | null>();
  const dbChanges: MergeResult['dbChanges'] = { add: [], remove: [], rename: [] };
  const newBase: string[] = [];
  const unresolved: SyncConflict[] = [];

  const toDb = (s: KeyState) => {
    if (s.db === null && s.file !== null) dbChanges.add.push(s.file);
    else if (s.db !== null && s.file === null) dbChanges.remove.push(s.db);
    else if (s.db !== null && s.file !== null) dbChanges.rename.push({ from: s.db, to: s.file });
  };

  for (const s of states(base ?? [], file, db)) {
    let agreed: string | null | undefined; // undefined: the sides still differ
    if (s.file === s.db) agreed = s.file;
    else if (s.file === s.base) {
      if (push) {
        fileChanges.set(s.key, s.db);
        agreed = s.db;
      }
    } else if (s.db === s.base) {
      if (pull) {
        toDb(s);
        agreed = s.file;
      }
    } else if (resolutions[s.key] === 'file') {
      toDb(s);
      agreed = s.file;
    } else if (resolutions[s.key] === 'db') {
      fileChanges.set(s.key, s.db);
      agreed = s.db;
    } else {
      unresolved.push(s);
    }
    const kept = agreed === undefined ? s.base : agreed;
    if (kept !== null) newBase.push(kept);
  }
  return { plan, fileChanges, dbChanges, newBase, unresolved };
}
