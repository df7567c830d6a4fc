/**
 * Registry entries (issue 17; spec 2.7, 4.5 rules 1-3; CONTRACT.md 3). CRUD through Prisma; every
 * numbering decision runs inside ONE transaction holding `pg_advisory_xact_lock` on the
 * (company, year) key (docs/registry.md "Numbering"):
 *   1. a new number = the highest sequence among the actual entries of that company and year
 *      (every format: the trigger of migration 017 derives `sequence` from the number) plus one;
 *      the `SEQ` counter row only mirrors it;
 *   2. a change of company, year or direction allocates a new number and recalculates the old
 *      key's counter;
 *   3. only the entry with the highest sequence of its company and year may be deleted (else 409
 *      with a Romanian explanation); the counter is recalculated.
 * Every write adds a row to registry_entry_history (who, when, which fields from what to what).
 */
import type { Db } from '../db/pool';
import { Prisma, type PrismaClient } from '../db/prisma';
import { errors } from '../errors';
import { assertWritable, canRead, canWrite, notFoundEntry, readableCompanies, type RegistryViewer } from './access';
import { formatRegistryNumber, type Direction, type RegistryCompany } from './numbers';
import type { StatusClass } from './status';
import { escapeLike } from '../text/like';

type Tx = Prisma.TransactionClient;
type EntryRow = Awaited<ReturnType<PrismaClient['registryEntry']['findUniqueOrThrow']>>;

/** Long enough for 50+ writers queueing on one company's lock on a busy 2-core machine. */
const TX_OPTIONS = { maxWait: 60_000, timeout: 60_000 } as const;

export interface AttachmentRef {
  id: string;
  name: string;
  size: number;
  mimeType: string;
}

/** Stored attachment: the reference plus where its bytes are (S3 key), or legacy inline base64. */
export interface StoredAttachment extends AttachmentRef {
  key?: string;
  sha256?: string;
  data?: string;
  fileData?: string;
}

export interface TrackingHistoryItem {
  at: string;
  status: string;
  text: string;
}

export interface Tracking {
  authority: string;
  petitionerName: string | null;
  requestNumber: string;
  status: string | null;
  statusLabel?: string | null;
  statusText?: string | null;
  statusClass: StatusClass | null;
  history: TrackingHistoryItem[];
  changeHash: string | null;
  lastCheckedAt: string | null;
  lastError?: string | null;
}

export interface RegistryEntry {
  id: string;
  number: string;
  company: RegistryCompany;
  year: number;
  sequence: number;
  direction: Direction;
  date: string;
  subject: string;
  sender: string | null;
  recipient: string | null;
  documentType: string | null;
  notes: string | null;
  deadline: string | null;
  assignee: string | null;
  attachments: AttachmentRef[];
  tracking: Tracking | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  /** Present (true) when personal fields were withheld from this viewer. */
  restricted?: true;
}

export interface TrackingInput {
  authority: string;
  petitionerName?: string | null;
  requestNumber: string;
}

export interface EntryInput {
  company?: RegistryCompany;
  direction: Direction;
  /** YYYY-MM-DD; default today in Europe/Bucharest. Its year is the entry's numbering year. */
  date?: string;
  subject: string;
  sender?: string | null;
  recipient?: string | null;
  documentType?: string | null;
  notes?: string | null;
  deadline?: string | null;
  assignee?: string | null;
  tracking?: TrackingInput | null;
}

export type EntryPatch = Partial<EntryInput>;

export interface ListQuery {
  company?: RegistryCompany;
  year?: number;
  direction?: Direction;
  q?: string;
  page?: number;
  pageSize?: number;
}

export interface HistoryChange {
  field: string;
  before: unknown;
  after: unknown;
}

const ymd = (d: Date | null): string | null => (d ? d.toISOString().slice(0, 10) : null);
const asDate = (s: string | null | undefined): Date | null | undefined =>
  s === undefined ? undefined : s === null ? null : new Date(`${s}T00:00:00Z`);

/** Today's date in Europe/Bucharest (the registry's calendar). */
export function todayInBucharest(now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Bucharest', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

function lockKey(company: string, year: number): string {
  return `registry-seq:${company}:${year}`;
}

/** Serialises numbering of one company's year (held until the transaction ends). */
async function lockNumbering(tx: Tx, keys: Array<{ company: string; year: number }>): Promise<void> {
  // Always in the same order, so two transactions that need two keys cannot deadlock.
  const sorted = [...new Set(keys.map((k) => lockKey(k.company, k.year)))].sort();
  for (const k of sorted) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${k}))`;
}

async function maxSequence(tx: Tx, company: string, year: number): Promise<number> {
  const r = await tx.registryEntry.aggregate({ _max: { sequence: true }, where: { company, year } });
  return r._max.sequence ?? 0;
}

/** The SEQ counter mirrors the actual maximum (spec 4.5 rule 1). */
async function mirrorCounter(tx: Tx, company: string, year: number, value: number): Promise<void> {
  await tx.registryCounter.upsert({
    where: { type_company_year: { type: 'SEQ', company, year } },
    create: { type: 'SEQ', company, year, value },
    update: { value },
  });
}

async function recalcCounter(tx: Tx, company: string, year: number): Promise<number> {
  const value = await maxSequence(tx, company, year);
  await mirrorCounter(tx, company, year, value);
  return value;
}

export async function addHistory(
  tx: Tx | PrismaClient,
  row: { entryId: string; company: string; number: string; action: string; actor: { userId: string; name: string } | null; changes: HistoryChange[] },
): Promise<void> {
  await tx.registryEntryHistory.create({
    data: {
      entryId: row.entryId,
      company: row.company,
      number: row.number,
      action: row.action,
      actorId: row.actor?.userId ?? null,
      actorName: row.actor?.name ?? null,
      changes: row.changes as unknown as Prisma.InputJsonValue,
    },
  });
}

function trackingFromInput(t: TrackingInput, previous: Tracking | null): Tracking {
  const same = previous && previous.requestNumber === t.requestNumber && previous.authority === t.authority;
  return {
    authority: t.authority,
    petitionerName: t.petitionerName === undefined ? (previous?.petitionerName ?? null) : t.petitionerName,
    requestNumber: t.requestNumber,
    // Another request (or authority) is another submission: its status is not known yet.
    status: same ? previous.status : null,
    statusLabel: same ? (previous.statusLabel ?? null) : null,
    statusText: same ? (previous.statusText ?? null) : null,
    statusClass: same ? previous.statusClass : null,
    history: same ? previous.history : [],
    changeHash: same ? previous.changeHash : null,
    lastCheckedAt: same ? previous.lastCheckedAt : null,
    lastError: same ? (previous.lastError ?? null) : null,
  };
}

export function toEntry(row: EntryRow, viewer: RegistryViewer | null): RegistryEntry {
  const tracking = (row.tracking as unknown as Tracking | null) ?? null;
  const attachments = ((row.attachments as unknown as StoredAttachment[]) ?? []).map((a) => ({
    id: a.id,
    name: a.name,
    size: a.size,
    mimeType: a.mimeType,
  }));
  const hide = viewer?.restricted ?? false;
  return {
    id: row.id,
    number: row.number,
    company: row.company as RegistryCompany,
    year: row.year,
    sequence: row.sequence,
    direction: row.direction as Direction,
    date: ymd(row.date)!,
    subject: row.subject,
    sender: hide ? null : row.sender,
    recipient: hide ? null : row.recipient,
    documentType: row.documentType,
    notes: row.notes,
    deadline: ymd(row.deadline),
    assignee: row.assignee,
    attachments,
    tracking: tracking && hide ? { ...tracking, petitionerName: null } : tracking,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(hide ? { restricted: true as const } : {}),
  };
}

function targetCompany(viewer: RegistryViewer, requested: RegistryCompany | undefined): RegistryCompany {
  const company = requested ?? viewer.company;
  if (!company) throw errors.badRequest('Alegeți compania registrului.', [{ field: 'company', problem: 'obligatoriu' }]);
  if (!canWrite(viewer, company)) {
    throw errors.forbidden(`Nu puteți înregistra documente în registrul companiei ${company}.`);
  }
  return company;
}

const yearOf = (date: string) => Number(date.slice(0, 4));

/** Fields compared for the history and copied on update (tracking handled apart). */
const PLAIN_FIELDS = ['subject', 'sender', 'recipient', 'documentType', 'notes', 'assignee'] as const;

/**
 * The create statement (spec 4.5 rule 1). ONE statement, so the (company, year) lock taken by the
 * allocating trigger (migration 017: empty number = allocate) is held only while the database
 * works, never across a client round trip; the entry, the SEQ counter and the history row commit
 * together, and the new row comes back in the same answer (no read after the write).
 * Sent on `pg`, not Prisma `$queryRaw` + `findUniqueOrThrow`: this is the one hot write path of
 * the registry (issue 17 bench: 50 clients creating in one company's year), and the single-threaded
 * API process spent more on the Prisma client's query handling and the second round trip than
 * PostgreSQL spent on the create itself. Dates come back as text (a `date` parsed by pg would land
 * on the process's local midnight).
 */
const CREATE_SQL = `
  WITH e AS (
    INSERT INTO registry_entries (number, company, year, sequence, direction, date, subject, sender, recipient,
                                  document_type, notes, deadline, assignee, tracking, created_by, updated_by)
    VALUES ('', $1, $2, 0, $3, $4::date, $5, $6, $7, $8, $9, $10::date, $11, $12::jsonb, $13, $13)
    RETURNING *
  ), h AS (
    INSERT INTO registry_entry_history (entry_id, company, number, action, actor_id, actor_name, changes)
    SELECT e.id, e.company, e.number, 'create', $13, $14,
           jsonb_build_array(jsonb_build_object('field', 'number', 'before', NULL, 'after', e.number)) || $15::jsonb
      FROM e
  )
  SELECT id::text, number, company, year, sequence, direction, date::text AS date, subject, sender, recipient,
         document_type AS "documentType", notes, deadline::text AS deadline, assignee, attachments, tracking,
         created_by AS "createdBy", updated_by AS "updatedBy", created_at AS "createdAt", updated_at AS "updatedAt"
    FROM e`;

type CreatedRow = Omit<EntryRow, 'date' | 'deadline'> & { date: string; deadline: string | null };

export async function createEntry(db: Db, viewer: RegistryViewer, input: EntryInput): Promise<RegistryEntry> {
  const company = targetCompany(viewer, input.company);
  const date = input.date ?? todayInBucharest();
  const year = yearOf(date);
  const tracking = input.tracking ? trackingFromInput(input.tracking, null) : null;
  const changes: HistoryChange[] = [
    { field: 'direction', before: null, after: input.direction },
    { field: 'date', before: null, after: date },
    ...PLAIN_FIELDS.filter((f) => input[f] != null).map((f) => ({ field: f, before: null, after: input[f] })),
    ...(input.deadline ? [{ field: 'deadline', before: null, after: input.deadline }] : []),
    ...(tracking ? [{ field: 'tracking', before: null, after: { authority: tracking.authority, requestNumber: tracking.requestNumber, petitionerName: tracking.petitionerName } }] : []),
  ];
  // Named: each connection parses and plans the statement once, not on every create.
  const r = await db.query<CreatedRow>({ name: 'registry-create-entry', text: CREATE_SQL }, [
    company, year, input.direction, date, input.subject, input.sender ?? null, input.recipient ?? null, input.documentType ?? null,
    input.notes ?? null, input.deadline ?? null, input.assignee ?? null, tracking ? JSON.stringify(tracking) : null,
    viewer.userId, viewer.name, JSON.stringify(changes),
  ]);
  const row = r.rows[0];
  return toEntry({ ...row, date: asDate(row.date)!, deadline: asDate(row.deadline) ?? null }, viewer);
}

/** The entry as the viewer may see it; 404 when it does not exist for them. */
export async function getEntryRow(prisma: PrismaClient | Tx, viewer: RegistryViewer, id: string): Promise<EntryRow> {
  const row = await prisma.registryEntry.findUnique({ where: { id } });
  if (!row || !canRead(viewer, row.company)) throw notFoundEntry();
  return row;
}

export async function getEntry(prisma: PrismaClient, viewer: RegistryViewer, id: string): Promise<RegistryEntry> {
  return toEntry(await getEntryRow(prisma, viewer, id), viewer);
}

function trackingSummary(t: Tracking | null) {
  return t ? { authority: t.authority, requestNumber: t.requestNumber, petitionerName: t.petitionerName } : null;
}

export async function updateEntry(prisma: PrismaClient, viewer: RegistryViewer, id: string, patch: EntryPatch): Promise<RegistryEntry> {
  const before = await getEntryRow(prisma, viewer, id);
  assertWritable(viewer, before.company);
  const newCompany = patch.company ?? (before.company as RegistryCompany);
  if (newCompany !== before.company && !canWrite(viewer, newCompany)) {
    throw errors.forbidden(`Nu puteți muta înregistrarea în registrul companiei ${newCompany}.`);
  }
  const newDate = patch.date ?? ymd(before.date)!;
  const newYear = yearOf(newDate);
  const newDirection = patch.direction ?? (before.direction as Direction);
  const renumber = newCompany !== before.company || newYear !== before.year || newDirection !== before.direction;

  const row = await prisma.$transaction(async (tx) => {
    await lockNumbering(tx, [{ company: before.company, year: before.year }, { company: newCompany, year: newYear }]);
    const current = await tx.registryEntry.findUnique({ where: { id } });
    if (!current) throw notFoundEntry();
    if (current.company !== before.company || current.year !== before.year) {
      throw errors.conflict('entry_changed', 'Înregistrarea a fost modificată între timp; reîncărcați pagina și încercați din nou.');
    }
    const changes: HistoryChange[] = [];
    const data: Prisma.RegistryEntryUpdateInput = { updatedBy: viewer.userId };
    for (const f of PLAIN_FIELDS) {
      if (patch[f] === undefined) continue;
      const next = f === 'subject' ? (patch[f] as string) : (patch[f] ?? null);
      if (next !== current[f]) {
        changes.push({ field: f, before: current[f], after: next });
        (data as Record<string, unknown>)[f] = next;
      }
    }
    if (patch.date !== undefined && patch.date !== ymd(current.date)) {
      changes.push({ field: 'date', before: ymd(current.date), after: patch.date });
      data.date = asDate(patch.date)!;
    }
    if (patch.deadline !== undefined && (patch.deadline ?? null) !== ymd(current.deadline)) {
      changes.push({ field: 'deadline', before: ymd(current.deadline), after: patch.deadline ?? null });
      data.deadline = asDate(patch.deadline) ?? null;
    }
    if (patch.tracking !== undefined) {
      const prev = (current.tracking as unknown as Tracking | null) ?? null;
      const next = patch.tracking ? trackingFromInput(patch.tracking, prev) : null;
      if (JSON.stringify(trackingSummary(prev)) !== JSON.stringify(trackingSummary(next))) {
        changes.push({ field: 'tracking', before: trackingSummary(prev), after: trackingSummary(next) });
        data.tracking = next ? (next as unknown as Prisma.InputJsonValue) : Prisma.DbNull;
      }
    }
    if (newDirection !== current.direction) {
      changes.push({ field: 'direction', before: current.direction, after: newDirection });
      data.direction = newDirection;
    }
    let number = current.number;
    if (renumber) {
      const sequence = (await maxSequence(tx, newCompany, newYear)) + 1;
      number = formatRegistryNumber(newCompany, newYear, sequence);
      if (newCompany !== current.company) changes.push({ field: 'company', before: current.company, after: newCompany });
      changes.push({ field: 'number', before: current.number, after: number });
      Object.assign(data, { number, company: newCompany, year: newYear, sequence });
    }
    if (changes.length === 0) return current;
    const updated = await tx.registryEntry.update({ where: { id }, data });
    if (renumber) {
      await mirrorCounter(tx, newCompany, newYear, updated.sequence);
      // The old key may have lost its highest number: the counter follows the entries.
      if (newCompany !== current.company || newYear !== current.year) await recalcCounter(tx, current.company, current.year);
    }
    await addHistory(tx, { entryId: id, company: newCompany, number, action: renumber ? 'renumber' : 'update', actor: viewer, changes });
    return updated;
  }, TX_OPTIONS);
  return toEntry(row, viewer);
}

/**
 * Deletes the entry if it holds the highest sequence of its company and year (spec 4.5 rule 3);
 * answers the stored attachments so the caller removes their bytes once the row is gone.
 */
export async function deleteEntry(prisma: PrismaClient, viewer: RegistryViewer, id: string): Promise<{ number: string; attachments: StoredAttachment[] }> {
  const before = await getEntryRow(prisma, viewer, id);
  assertWritable(viewer, before.company);
  return prisma.$transaction(async (tx) => {
    await lockNumbering(tx, [{ company: before.company, year: before.year }]);
    const current = await tx.registryEntry.findUnique({ where: { id } });
    if (!current) throw notFoundEntry();
    const max = await maxSequence(tx, current.company, current.year);
    if (current.sequence < max) {
      const last = await tx.registryEntry.findFirst({ where: { company: current.company, year: current.year, sequence: max }, select: { number: true } });
      throw errors.conflict(
        'not_last_number',
        `Numărul ${current.number} nu poate fi șters: doar ultimul număr din registrul companiei ${current.company} pe anul ${current.year} ` +
          `(${last?.number ?? max}) se poate șterge, altfel în registru ar rămâne un gol. Modificați înregistrarea în loc să o ștergeți.`,
        { number: current.number, lastNumber: last?.number ?? null },
      );
    }
    await tx.registryEntry.delete({ where: { id } });
    await recalcCounter(tx, current.company, current.year);
    await addHistory(tx, {
      entryId: id,
      company: current.company,
      number: current.number,
      action: 'delete',
      actor: viewer,
      changes: [{ field: 'number', before: current.number, after: null }],
    });
    return { number: current.number, attachments: (current.attachments as unknown as StoredAttachment[]) ?? [] };
  }, TX_OPTIONS);
}

export interface EntryPage {
  items: RegistryEntry[];
  total: number;
  page: number;
  pageSize: number;
}

/** LIKE pattern of a normalised search text (%, _ and \ taken literally). */
function likePattern(q: string): string {
  return `%${escapeLike(q)}%`;
}

export async function listEntries(prisma: PrismaClient, viewer: RegistryViewer, q: ListQuery): Promise<EntryPage> {
  const page = q.page ?? 1;
  const pageSize = q.pageSize ?? 50;
  let companies = readableCompanies(viewer) as string[];
  if (q.company) companies = companies.filter((c) => c === q.company);
  if (companies.length === 0) return { items: [], total: 0, page, pageSize };
  const conds: Prisma.Sql[] = [Prisma.sql`company IN (${Prisma.join(companies)})`];
  if (q.year !== undefined) conds.push(Prisma.sql`year = ${q.year}`);
  if (q.direction) conds.push(Prisma.sql`direction = ${q.direction}`);
  const text = q.q?.trim();
  if (text) {
    const pattern = likePattern(text);
    // Restricted viewers cannot find entries by the names they are not allowed to read.
    conds.push(
      viewer.restricted
        ? Prisma.sql`f_registry_search_text_restricted(subject, number, notes) LIKE f_norm(${pattern})`
        : Prisma.sql`f_registry_search_text(subject, sender, recipient, number, notes) LIKE f_norm(${pattern})`,
    );
  }
  const where = Prisma.join(conds, ' AND ');
  const rows = await prisma.$queryRaw<Array<{ id: string; total: number }>>`
    SELECT id::text AS id, (count(*) OVER ())::int AS total FROM registry_entries WHERE ${where}
     ORDER BY year DESC, sequence DESC, created_at DESC
     LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`;
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && page > 1) {
    total = (await prisma.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM registry_entries WHERE ${where}`)[0].n;
  }
  const found = await prisma.registryEntry.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
  const byId = new Map(found.map((r) => [r.id, r]));
  const items = rows.map((r) => byId.get(r.id)).filter((r): r is EntryRow => !!r).map((r) => toEntry(r, viewer));
  return { items, total, page, pageSize };
}

export interface HistoryItem {
  id: string;
  action: string;
  at: string;
  actorId: string | null;
  actorName: string | null;
  number: string;
  changes: HistoryChange[];
}

const PERSONAL_HISTORY_FIELDS = new Set(['sender', 'recipient']);

function redactChange(c: HistoryChange): HistoryChange {
  if (PERSONAL_HISTORY_FIELDS.has(c.field)) return { field: c.field, before: c.before == null ? null : '***', after: c.after == null ? null : '***' };
  if (c.field === 'tracking') {
    const strip = (v: unknown) => (v && typeof v === 'object' ? { ...(v as object), petitionerName: null } : v);
    return { field: c.field, before: strip(c.before), after: strip(c.after) };
  }
  return c;
}

/** The entry's change history, oldest first (the entry must be readable; kept after a delete for admins). */
export async function entryHistory(prisma: PrismaClient, viewer: RegistryViewer, id: string): Promise<HistoryItem[]> {
  const entry = await prisma.registryEntry.findUnique({ where: { id }, select: { company: true } });
  const rows = await prisma.registryEntryHistory.findMany({ where: { entryId: id }, orderBy: [{ at: 'asc' }, { id: 'asc' }] });
  const company = entry?.company ?? rows[0]?.company;
  if (!company || !canRead(viewer, company) || (!entry && !viewer.isAdmin)) throw notFoundEntry();
  return rows.map((r) => {
    const changes = (r.changes as unknown as HistoryChange[]) ?? [];
    return {
      id: String(r.id),
      action: r.action,
      at: r.at.toISOString(),
      actorId: r.actorId,
      actorName: r.actorName,
      number: r.number,
      changes: viewer.restricted ? changes.map(redactChange) : changes,
    };
  });
}
