/**
 * The tag manager (spec 2.8, 4.6; CONTRACT.md section 3; docs/office.md): project, phase and
 * activity tags in the app (Prisma, table `tags`) kept in step with the time tracker's tag file
 * by a three-way merge (merge.ts) against the last synced state (table `tag_sync_state`). One sync
 * of a file at a time (a transaction-scoped advisory lock); the file is backed up and written
 * atomically (fileStore.ts) inside that transaction, so a failed write leaves the app's tags as
 * they were.
 */
import { createHash } from 'node:crypto';
import type { Prisma, PrismaClient } from '../db/prisma';
import { AppError, errors } from '../errors';
import { childLogger } from '../log';
import { mergeTags, planSync, tagKey, type Side, type SyncMode, type SyncPlan } from './merge';
import { applyToTagFile, emptyTagFile, fileTagPaths, parseTagFile, serializeTagFile, TagFileEncodingError, type TagFileDoc } from './tagFile';
import { backupTagFile, readTagFileBytes, writeFileAtomic, type AtomicWriteHooks } from './fileStore';
import { tagFromLevels, validLevel, type TagCategory, type TagPath } from './tagPath';

const log = childLogger('tags');

type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

async function readDoc(file: string): Promise<{ doc: TagFileDoc; exists: boolean; bytes: Buffer | null }> {
  const bytes = await readTagFileBytes(file);
  if (bytes === null) return { doc: emptyTagFile(), exists: false, bytes };
  try {
    return { doc: parseTagFile(bytes), exists: true, bytes };
  } catch (err) {
    if (err instanceof TagFileEncodingError) {
      throw new AppError(422, 'tag_file_unreadable', 'Fișierul de etichete nu este text UTF-8; nu a fost modificat.', {
        hint: 'Salvați fișierul ca UTF-8 și reîncercați.',
      });
    }
    throw err;
  }
}

async function dbPaths(db: Tx): Promise<string[]> {
  return (await db.tag.findMany({ select: { path: true }, orderBy: { path: 'asc' } })).map((r) => r.path);
}

async function baseOf(db: Tx, file: string): Promise<{ lines: string[]; syncedAt: Date } | null> {
  return db.tagSyncState.findUnique({ where: { filePath: file }, select: { lines: true, syncedAt: true } });
}

/** Changes when the file, the app's tags or the base change: an apply can insist on the plan it showed. */
function fingerprint(bytes: Buffer | null, db: string[], base: string[] | null): string {
  return createHash('sha256')
    .update(bytes ?? Buffer.alloc(0))
    .update('\0' + JSON.stringify(db) + '\0' + JSON.stringify(base))
    .digest('hex')
    .slice(0, 32);
}

export interface PlanAnswer {
  file: { path: string; exists: boolean; lines: number; encoding: string };
  lastSyncAt: string | null;
  fingerprint: string;
  plan: SyncPlan;
}

export async function tagSyncPlan(prisma: PrismaClient, file: string): Promise<PlanAnswer> {
  const { doc, exists, bytes } = await readDoc(file);
  const [db, base] = await Promise.all([dbPaths(prisma), baseOf(prisma, file)]);
  return {
    file: { path: file, exists, lines: fileTagPaths(doc).length, encoding: doc.encoding },
    lastSyncAt: base?.syncedAt.toISOString() ?? null,
    fingerprint: fingerprint(bytes, db, base?.lines ?? null),
    plan: planSync(base?.lines ?? null, fileTagPaths(doc), db),
  };
}

export interface ApplyInput {
  mode: SyncMode;
  /** Conflict key → the side that wins. */
  resolutions?: Record<string, Side>;
  /** The fingerprint of the plan the user saw; 409 `plan_changed` when the state moved since. */
  expectFingerprint?: string;
}

export interface ApplyAnswer {
  mode: SyncMode;
  applied: { db: { added: number; removed: number; changed: number }; file: { written: boolean; backup: string | null } };
  conflicts: SyncPlan['conflicts'];
  plan: SyncPlan;
}

function tagRow(t: TagPath, company: string | null | undefined) {
  return {
    path: t.path,
    category: t.category,
    project: t.project,
    phase: t.phase,
    activity: t.activity,
    projectCode: t.projectCode,
    company: company ?? t.company,
  };
}

export async function applyTagSync(
  prisma: PrismaClient,
  file: string,
  input: ApplyInput,
  by: string | null,
  hooks: AtomicWriteHooks = {},
): Promise<ApplyAnswer> {
  return prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${'tag-sync:' + file}))) AS l`;
      // Then the tags' own lock (always in this order): an add or rename waits for the sync's writes.
      await lockTagWrites(tx);
      const { doc, bytes } = await readDoc(file);
      const db = await dbPaths(tx);
      const base = await baseOf(tx, file);
      if (input.expectFingerprint && input.expectFingerprint !== fingerprint(bytes, db, base?.lines ?? null)) {
        throw errors.conflict('plan_changed', 'Fișierul sau etichetele s-au schimbat între timp; reîncărcați planul de sincronizare.');
      }
      const filePaths = fileTagPaths(doc);
      const r = mergeTags(base?.lines ?? null, filePaths, db, input.mode, input.resolutions ?? {});

      for (const p of r.dbChanges.remove) await tx.tag.deleteMany({ where: { path: p } });
      for (const { from, to } of r.dbChanges.rename) {
        const t = tagFromLevels(...levelsOf(to));
        const old = await tx.tag.findUnique({ where: { path: from }, select: { company: true } });
        await tx.tag.update({ where: { path: from }, data: tagRow(t, old?.company) });
      }
      for (const p of r.dbChanges.add) {
        const t = tagFromLevels(...levelsOf(p));
        await tx.tag.upsert({ where: { path: t.path }, create: tagRow(t, undefined), update: {} });
      }

      let backup: string | null = null;
      const written = r.fileChanges.size > 0;
      if (written) {
        const next = serializeTagFile(applyToTagFile(doc, r.fileChanges));
        backup = await backupTagFile(file);
        await writeFileAtomic(file, next, hooks);
      }
      await tx.tagSyncState.upsert({
        where: { filePath: file },
        create: { filePath: file, lines: r.newBase, syncedBy: by },
        update: { lines: r.newBase, syncedAt: new Date(), syncedBy: by },
      });
      const applied = {
        db: { added: r.dbChanges.add.length, removed: r.dbChanges.remove.length, changed: r.dbChanges.rename.length },
        file: { written, backup },
      };
      log.info({ file, mode: input.mode, ...applied.db, fileWritten: written, conflicts: r.unresolved.length }, 'tag sync applied');
      return { mode: input.mode, applied, conflicts: r.unresolved, plan: r.plan };
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}

function levelsOf(p: string): [string, string | null, string | null] {
  const l = p.split(',').map((x) => x.trim());
  return [l[0], l[1] ?? null, l[2] ?? null];
}

// --- the app's side: the tag tree ------------------------------------------------------------

export interface TagOut {
  id: string;
  path: string;
  category: string;
  project: string;
  phase: string | null;
  activity: string | null;
  projectCode: string | null;
  company: string | null;
}

export async function listTags(prisma: PrismaClient, filter: { q?: string; company?: string } = {}): Promise<TagOut[]> {
  const q = filter.q?.trim();
  const rows = await prisma.tag.findMany({
    where: {
      ...(filter.company ? { company: filter.company } : {}),
      ...(q ? { path: { contains: q, mode: 'insensitive' } } : {}),
    },
    orderBy: [{ project: 'asc' }, { phase: 'asc' }, { activity: 'asc' }],
    take: 5000,
  });
  return rows.map(({ createdAt: _c, updatedAt: _u, ...r }) => r);
}

export async function addTag(
  prisma: PrismaClient,
  input: { project: string; phase?: string | null; activity?: string | null; company?: string | null },
): Promise<TagOut> {
  const bad = [
    ['project', input.project],
    ['phase', input.phase],
    ['activity', input.activity],
  ].filter(([, v]) => v != null && v !== '' && !validLevel(v));
  if (bad.length) throw errors.badRequest('Un nivel de etichetă nu poate conține virgule.', bad.map(([f]) => ({ field: f, problem: 'conține „,”' })));
  if (input.activity && !input.phase) throw errors.badRequest('O activitate are nevoie de o fază.', [{ field: 'phase', problem: 'obligatoriu pentru activitate' }]);
  const t = tagFromLevels(input.project, input.phase ?? null, input.activity ?? null);
  return prisma.$transaction(async (tx) => {
    await lockTagWrites(tx);
    const clash = (await tx.tag.findMany({ select: { path: true } })).find((r) => {
      const other = tagFromLevels(...levelsOf(r.path));
      return tagKey(other) === tagKey(t);
    });
    if (clash) throw errors.conflict('tag_exists', `Eticheta există deja: „${clash.path}”.`);
    const { createdAt: _c, updatedAt: _u, ...row } = await tx.tag.create({ data: tagRow(t, input.company) });
    return row;
  });
}

/**
 * One add or rename of a tag at a time: the clash check reads every tag's key (a project's code,
 * whatever its name), which no unique index holds; two colleagues adding one project at the same
 * moment both passed it (a 500 on the path's index, or two projects under one code).
 */
async function lockTagWrites(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${'tag-writes'}))) AS l`;
}

/** The tags a project or phase tag stands for: itself and every tag under it. */
function subtreeOf(tag: { id: string; category: string; project: string; phase: string | null }) {
  return tag.category === 'project' ? { project: tag.project } : tag.category === 'phase' ? { project: tag.project, phase: tag.phase } : { id: tag.id };
}

const DEPTH: Record<string, number> = { project: 0, phase: 1, activity: 2 };
const LEVEL_WORD: Record<string, string> = { project: 'proiect', phase: 'fază', activity: 'activitate' };

export interface TagChange {
  /** The new text of the level changed: the project text (with its code), the phase or the activity. */
  name?: string;
  /** The company of the tag and of every tag under it; null: the one its code implies. */
  company?: string | null;
  /**
   * The level of the tag's path that changes, the tag's own by default. A tag added as a full
   * path (`Project, Phase, Activity`) has no project or phase tag of its own: its project or
   * phase is renamed through it, for every tag that shares that project (or project and phase).
   */
  level?: TagCategory;
}

/**
 * Renames a tag's own level (or, with `level`, its project or phase) and/or sets its company, for
 * the tag and every tag under it (a project's phases and activities follow their project). The paths change with the name, so the
 * next sync plan shows them as the app's changes (a rename that keeps the project code is a change
 * of the same tag, any other a removal plus an addition: docs/office.md "Identity"). A name
 * another tag already has is 409 `tag_exists`, as for a new tag.
 */
export async function updateTag(prisma: PrismaClient, id: string, change: TagChange): Promise<TagOut> {
  if (change.name !== undefined && !validLevel(change.name)) {
    throw errors.badRequest('Un nivel de etichetă nu poate fi gol și nu poate conține virgule.', [{ field: 'name', problem: 'gol sau conține „,”' }]);
  }
  return prisma.$transaction(async (tx) => {
    await lockTagWrites(tx);
    const tag = await tx.tag.findUnique({ where: { id } });
    if (!tag) throw errors.notFound('Eticheta nu există.');
    const level = change.level ?? (tag.category as TagCategory);
    if (DEPTH[level] > DEPTH[tag.category]) {
      throw errors.badRequest('Eticheta nu are acest nivel.', [{ field: 'level', problem: `eticheta este de nivel ${LEVEL_WORD[tag.category]}` }]);
    }
    const rows = await tx.tag.findMany({ where: subtreeOf({ ...tag, category: level }) });
    const name = change.name?.trim();
    const renamed = (r: (typeof rows)[number]) =>
      name === undefined
        ? tagFromLevels(r.project, r.phase, r.activity)
        : level === 'project'
          ? tagFromLevels(name, r.phase, r.activity)
          : level === 'phase'
            ? tagFromLevels(r.project, name, r.activity)
            : tagFromLevels(r.project, r.phase, name);
    const next = rows.map((r) => ({ row: r, to: renamed(r) }));
    if (name !== undefined) {
      const moving = new Set(rows.map((r) => r.id));
      const others = (await tx.tag.findMany({ select: { id: true, path: true } })).filter((o) => !moving.has(o.id));
      const taken = new Map(others.map((o) => [tagKey(tagFromLevels(...levelsOf(o.path))), o.path]));
      const clash = next.map(({ to }) => taken.get(tagKey(to))).find((p) => p !== undefined);
      if (clash) throw errors.conflict('tag_exists', `Eticheta există deja: „${clash}”.`);
    }
    // Within the subtree every path changes alike, so no row takes another's old path.
    for (const { row, to } of next) {
      // A company the old code implied follows the new code; one set by hand stays.
      const implied = tagFromLevels(row.project, row.phase, row.activity).company;
      const company = change.company !== undefined ? (change.company ?? to.company) : row.company === implied ? to.company : row.company;
      await tx.tag.update({ where: { id: row.id }, data: tagRow(to, company) });
    }
    const { createdAt: _c, updatedAt: _u, ...out } = (await tx.tag.findUnique({ where: { id } }))!;
    return out;
  });
}

/** Deletes a tag and, for a project or phase, the tags under it. */
export async function deleteTag(prisma: PrismaClient, id: string): Promise<{ deleted: number }> {
  const tag = await prisma.tag.findUnique({ where: { id } });
  if (!tag) throw errors.notFound('Eticheta nu există.');
  const { count } = await prisma.tag.deleteMany({ where: subtreeOf(tag) });
  return { deleted: count };
}

// --- projects: what the tags name, for the assistant ------------------------------------------

export interface ProjectOut {
  /** The project tag's id, or (a project known only from full paths) its first tag's: either names the project. */
  id: string;
  /** The project level's text, code included (`B-0123 Casa Popescu`). */
  path: string;
  code: string | null;
  name: string;
  company: string | null;
}

function projectsOf(rows: Array<{ id: string; category: string; project: string; projectCode: string | null; company: string | null }>): ProjectOut[] {
  const out = new Map<string, ProjectOut & { own: boolean }>();
  for (const r of rows) {
    const seen = out.get(r.project);
    const own = r.category === 'project';
    if (seen && (seen.own || !own)) {
      seen.company ??= r.company;
      continue;
    }
    const t = tagFromLevels(r.project, null, null);
    out.set(r.project, { id: r.id, path: t.path, code: t.projectCode, name: t.projectName, company: r.company ?? seen?.company ?? null, own });
  }
  return [...out.values()].map(({ own: _own, ...p }) => p);
}

/**
 * Every project the office's tags name, with or without a project tag of its own (a tag added
 * as `Project, Phase, Activity` names its project too), limited to `companies` (the ones the
 * viewer reads; a project without a company is everyone's). Ordered by code, then text.
 */
export async function listProjects(prisma: PrismaClient, companies: readonly string[]): Promise<ProjectOut[]> {
  const rows = await prisma.tag.findMany({
    where: { OR: [{ company: null }, { company: { in: [...companies] } }] },
    select: { id: true, category: true, project: true, projectCode: true, company: true },
    orderBy: [{ project: 'asc' }, { path: 'asc' }],
  });
  return projectsOf(rows).sort((a, b) => (a.code ?? '\uffff').localeCompare(b.code ?? '\uffff') || a.path.localeCompare(b.path, 'ro'));
}

/** The project a tag id names (its project tag or any tag of it), as `listProjects` shows it; null for an unknown id. */
export async function projectOfTag(prisma: PrismaClient, id: string): Promise<ProjectOut | null> {
  const tag = await prisma.tag.findUnique({ where: { id }, select: { project: true } });
  if (!tag) return null;
  const rows = await prisma.tag.findMany({
    where: { project: tag.project },
    select: { id: true, category: true, project: true, projectCode: true, company: true },
    orderBy: { path: 'asc' },
  });
  return projectsOf(rows)[0] ?? null;
}
