/**
 * The weekend deep sync queue in the store (spec 3.4, CONTRACT.md sections 3 and 4): cities in
 * order, each with four steps run in order (sync_terenuri, sync_cladiri, import_nogeom, enrich),
 * step states pending | running | done | error | skipped. The workflow (workflows/weekendSync.ts)
 * reads the next step from here and writes each state change back, so the queue survives any
 * restart and the API reads it without asking the workflow.
 */
import type { PrismaClient } from '../db/prisma';
import type { Db } from '../db/pool';
import { errors } from '../errors';
import { uatsBySiruta } from '../landreg/service';
import { STEP_LABELS, STEP_STATES, WEEKEND_STEPS, type StepStates, type WeekendStep } from './weekendSteps';

const PAUSED_KEY = 'weekendSync.paused';
const LAST_REPORT_KEY = 'weekendSync.lastReport';

export interface QueueItem {
  siruta: number;
  name: string;
  steps: StepStates;
  lastError?: string;
  position: number;
  lastRunAt: string | null;
}

export interface NextStep {
  siruta: number;
  name: string;
  step: WeekendStep;
}

const allPending = (): StepStates => ({ sync_terenuri: 'pending', sync_cladiri: 'pending', import_nogeom: 'pending', enrich: 'pending' });

function statesOf(v: unknown): StepStates {
  const o = (v ?? {}) as Partial<StepStates>;
  const out = allPending();
  for (const s of WEEKEND_STEPS) if (o[s] && (STEP_STATES as readonly string[]).includes(o[s]!)) out[s] = o[s]!;
  return out;
}

type Row = Awaited<ReturnType<PrismaClient['weekendSyncQueueItem']['findFirstOrThrow']>>;

function toItem(r: Row): QueueItem {
  return {
    siruta: r.siruta,
    name: r.name,
    steps: statesOf(r.steps),
    ...(r.lastError ? { lastError: r.lastError } : {}),
    position: r.position,
    lastRunAt: r.lastRunAt?.toISOString() ?? null,
  };
}

export async function listQueue(prisma: PrismaClient): Promise<QueueItem[]> {
  const rows = await prisma.weekendSyncQueueItem.findMany({ orderBy: [{ position: 'asc' }, { siruta: 'asc' }] });
  return rows.map(toItem);
}

/**
 * The step to run next: the first city (queue order) with a pending step, its first pending one.
 * A step left `running` (the workflow was ended from outside mid-step) counts as pending.
 */
export function pickNext(queue: readonly QueueItem[], prefer?: number | null): NextStep | null {
  // A city started from its own row runs before the queue's order (issue 30: its "Pornește").
  const first = prefer === undefined || prefer === null ? [] : queue.filter((q) => q.siruta === prefer);
  for (const item of [...first, ...queue]) {
    for (const step of WEEKEND_STEPS) {
      const st = item.steps[step];
      if (st === 'pending' || st === 'running') return { siruta: item.siruta, name: item.name, step };
    }
  }
  return null;
}

export async function nextStep(prisma: PrismaClient, prefer?: number | null): Promise<NextStep | null> {
  return pickNext(await listQueue(prisma), prefer);
}

async function rowOrThrow(prisma: PrismaClient, siruta: number): Promise<Row> {
  const r = await prisma.weekendSyncQueueItem.findUnique({ where: { siruta } });
  if (!r) throw errors.notFound(`UAT-ul ${siruta} nu este în coada de sincronizare de weekend.`);
  return r;
}

/** Marks a step running and counts the attempt; returns the attempt number (1, 2, …). */
export async function startStep(prisma: PrismaClient, siruta: number, step: WeekendStep, at: Date): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Array<{ attempts: Record<string, number> }>>`SELECT attempts FROM weekend_sync_queue WHERE siruta = ${siruta} FOR UPDATE`;
    if (!rows[0]) return 0;
    const attempts = { ...rows[0].attempts, [step]: (rows[0].attempts[step] ?? 0) + 1 };
    const r = await tx.weekendSyncQueueItem.findUniqueOrThrow({ where: { siruta } });
    await tx.weekendSyncQueueItem.update({ where: { siruta }, data: { steps: { ...statesOf(r.steps), [step]: 'running' }, attempts, lastRunAt: at } });
    return attempts[step];
  });
}

/**
 * Ends a step. A failed parcel sync skips the steps that need the parcels (no-geometry import
 * and enrichment); the buildings still sync. A city removed meanwhile is simply gone.
 */
export async function finishStep(prisma: PrismaClient, siruta: number, step: WeekendStep, outcome: { ok: true } | { ok: false; error: string }): Promise<void> {
  const r = await prisma.weekendSyncQueueItem.findUnique({ where: { siruta } });
  if (!r) return;
  const steps = statesOf(r.steps);
  steps[step] = outcome.ok ? 'done' : 'error';
  if (!outcome.ok && step === 'sync_terenuri') {
    for (const s of ['import_nogeom', 'enrich'] as const) if (steps[s] === 'pending') steps[s] = 'skipped';
  }
  await prisma.weekendSyncQueueItem.update({
    where: { siruta },
    data: { steps, ...(outcome.ok ? {} : { lastError: `${STEP_LABELS[step]}: ${outcome.error}`.slice(0, 1000) }) },
  });
}

export async function addCity(prisma: PrismaClient, db: Db, siruta: number): Promise<QueueItem> {
  const uat = (await uatsBySiruta(db, [siruta])).get(siruta);
  if (!uat) throw errors.badRequest('UAT-ul nu există în baza locală.', [{ field: 'siruta', problem: `SIRUTA necunoscut: ${siruta}` }]);
  const existing = await prisma.weekendSyncQueueItem.findUnique({ where: { siruta } });
  if (existing) return toItem(existing);
  const last = await prisma.weekendSyncQueueItem.aggregate({ _max: { position: true } });
  const r = await prisma.weekendSyncQueueItem.create({ data: { siruta, name: uat.name, position: (last._max.position ?? 0) + 1 } });
  return toItem(r);
}

const SEEDED_KEY = 'weekendSync.seeded';

/**
 * The seed step of the queue (spec 8 "default weekend cities", issue 30 item 3): once per
 * installation, the configured cities (config.scheduling.weekendDefaultCities) the UAT catalogue
 * knows are added in the configured order, with the catalogue's names. Nothing happens before the
 * catalogue knows one of them (a fresh installation: the step runs again at the next call), and
 * nothing after the first success, so a city an administrator removed never comes back.
 * Callers: the demo seed (scripts/seed-demo.ts) and the workers' start (workers/main.ts).
 */
export async function seedWeekendQueue(db: Db, sirutas: readonly number[]): Promise<{ added: number }> {
  const catalogue = await uatsBySiruta(db, sirutas);
  const known = sirutas.flatMap((siruta) => catalogue.get(siruta) ?? []);
  if (known.length === 0) return { added: 0 };
  const r = await db.query<{ added: number }>(
    `WITH known AS (SELECT * FROM unnest($1::int[], $2::text[]) WITH ORDINALITY c(siruta, name, ord)),
     claim AS (
       INSERT INTO gis_settings (key, value) VALUES ($3, 'true'::jsonb)
       ON CONFLICT (key) DO NOTHING RETURNING key),
     added AS (
       INSERT INTO weekend_sync_queue (siruta, name, position)
       SELECT k.siruta, k.name, (SELECT COALESCE(max(position), 0) FROM weekend_sync_queue) + k.ord FROM known k, claim
       ON CONFLICT (siruta) DO NOTHING RETURNING siruta)
     SELECT count(*)::int AS added FROM added`,
    [known.map((u) => u.siruta), known.map((u) => u.name), SEEDED_KEY],
  );
  return { added: r.rows[0].added };
}

export async function removeCity(prisma: PrismaClient, siruta: number): Promise<void> {
  const r = await prisma.weekendSyncQueueItem.deleteMany({ where: { siruta } });
  if (r.count === 0) throw errors.notFound(`UAT-ul ${siruta} nu este în coada de sincronizare de weekend.`);
}

/** `trigger`: steps in error (and those skipped because of them) go back to pending. */
export async function resetErrors(prisma: PrismaClient, siruta?: number): Promise<number> {
  let changed = 0;
  for (const r of siruta ? [await rowOrThrow(prisma, siruta)] : await prisma.weekendSyncQueueItem.findMany()) {
    const steps = statesOf(r.steps);
    let touched = false;
    for (const s of WEEKEND_STEPS) {
      if (steps[s] === 'error' || steps[s] === 'skipped') {
        steps[s] = 'pending';
        touched = true;
      }
    }
    if (touched) {
      changed++;
      await prisma.weekendSyncQueueItem.update({ where: { siruta: r.siruta }, data: { steps, lastError: null } });
    }
  }
  return changed;
}

/**
 * `trigger` from a city's row: its failed steps go back to pending, and a city with nothing left
 * to do starts over, so the session has something of that city to run first.
 */
export async function prepareCityTrigger(prisma: PrismaClient, siruta: number): Promise<void> {
  await resetErrors(prisma, siruta);
  const row = toItem(await rowOrThrow(prisma, siruta));
  if (!pickNext([row])) await resetAll(prisma, siruta);
}

/** `reset`: every step of one city (or of all) back to pending, errors and attempts cleared. */
export async function resetAll(prisma: PrismaClient, siruta?: number): Promise<void> {
  if (siruta) await rowOrThrow(prisma, siruta);
  await prisma.weekendSyncQueueItem.updateMany({ where: siruta ? { siruta } : {}, data: { steps: allPending(), lastError: null, attempts: {} } });
}

/** A new weekend: when nothing is left to do, the whole queue starts over. */
export async function startNewWeekend(prisma: PrismaClient): Promise<boolean> {
  if (pickNext(await listQueue(prisma))) return false;
  await prisma.weekendSyncQueueItem.updateMany({ data: { steps: allPending(), lastError: null, attempts: {} } });
  return true;
}

export async function isPaused(prisma: PrismaClient): Promise<boolean> {
  const s = await prisma.gisSetting.findUnique({ where: { key: PAUSED_KEY } });
  return s?.value === true;
}

export async function setPaused(prisma: PrismaClient, paused: boolean): Promise<void> {
  await prisma.gisSetting.upsert({ where: { key: PAUSED_KEY }, create: { key: PAUSED_KEY, value: paused }, update: { value: paused } });
}

export interface StoredReport {
  at: string;
  subject: string;
  text: string;
}

export async function saveLastReport(prisma: PrismaClient, report: StoredReport): Promise<void> {
  await prisma.gisSetting.upsert({ where: { key: LAST_REPORT_KEY }, create: { key: LAST_REPORT_KEY, value: { ...report } }, update: { value: { ...report } } });
}

export async function lastReport(prisma: PrismaClient): Promise<StoredReport | null> {
  const s = await prisma.gisSetting.findUnique({ where: { key: LAST_REPORT_KEY } });
  return (s?.value as StoredReport | undefined) ?? null;
}
