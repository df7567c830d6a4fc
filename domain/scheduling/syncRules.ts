/**
 * Sync rules in the store (spec 2.6, CONTRACT.md section 3): CRUD through Prisma, the global
 * default frequency (gis_settings `sync.defaultFrequency`), and the scheduler's view of which UAT
 * is due when. `nextDueAt` of a rule is the earliest start of the UATs it governs (due time moved
 * into the rule's windows); `lastRunAt` is when the scheduler last started one of them.
 *
 * Which UATs the scheduler runs: those a UAT or county rule governs. UATs that hold features but
 * have no rule fall to the global default, which the nightly auto-refresh serves (weekday nights
 * 01:00–05:00, skipping UATs synced within the default frequency): docs/scheduling.md.
 */
import type { PrismaClient } from '../db/prisma';
import type { Db } from '../db/pool';
import { errors } from '../errors';
import { countySpelling, syncCandidates, uatsBySiruta, uatsOfCounty, type SyncCandidate } from '../landreg/service';
import { DEFAULT_STEPS, FREQUENCIES, byPriority, resolveRule, scheduleFor, type Frequency, type RuleLike, type StepCode } from './rules';
import { AUTO_REFRESH_WINDOWS, nextOpenAt, type TimeWindow } from './windows';

export const DEFAULT_FREQUENCY_KEY = 'sync.defaultFrequency';

/** A stored rule: the fields the pure rules read (RuleLike) plus its run bookkeeping. */
export interface SyncRule extends RuleLike {
  lastRunAt: string | null;
  nextDueAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RuleInput {
  scope: 'uat' | 'county';
  siruta?: number;
  county?: string;
  frequency: Frequency;
  priority?: number;
  windows?: TimeWindow[];
  steps?: StepCode[];
  enabled?: boolean;
}

type Row = Awaited<ReturnType<PrismaClient['gisSyncRule']['findFirstOrThrow']>>;

const STEP_ORDER: StepCode[] = ['T', 'C', 'N', 'E'];
/** Steps are kept in their run order, whatever order the caller wrote them in. */
export const orderSteps = (steps: readonly string[]): StepCode[] => STEP_ORDER.filter((s) => steps.includes(s));

function toApi(r: Row): SyncRule {
  return {
    id: r.id,
    scope: r.scope as SyncRule['scope'],
    siruta: r.siruta,
    county: r.county,
    frequency: r.frequency as Frequency,
    priority: r.priority,
    windows: r.windows as unknown as TimeWindow[],
    steps: orderSteps(r.steps),
    enabled: r.enabled,
    lastRunAt: r.lastRunAt?.toISOString() ?? null,
    nextDueAt: r.nextDueAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

const asLike = (r: SyncRule): RuleLike => ({ ...r });

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === 'P2002';
}

function duplicate(input: { scope: string; siruta?: number | null; county?: string | null }) {
  return errors.conflict(
    'rule_exists',
    input.scope === 'uat' ? `Există deja o regulă pentru UAT-ul ${input.siruta}.` : `Există deja o regulă pentru județul ${input.county}.`,
  );
}

export async function getDefaultFrequency(prisma: PrismaClient): Promise<Frequency> {
  const s = await prisma.gisSetting.findUnique({ where: { key: DEFAULT_FREQUENCY_KEY } });
  const v = s?.value as string | undefined;
  return v && (FREQUENCIES as readonly string[]).includes(v) ? (v as Frequency) : 'daily';
}

export async function setDefaultFrequency(prisma: PrismaClient, frequency: Frequency): Promise<void> {
  await prisma.gisSetting.upsert({ where: { key: DEFAULT_FREQUENCY_KEY }, create: { key: DEFAULT_FREQUENCY_KEY, value: frequency }, update: { value: frequency } });
}

export async function listRules(prisma: PrismaClient): Promise<SyncRule[]> {
  const rows = await prisma.gisSyncRule.findMany({ orderBy: [{ priority: 'asc' }, { scope: 'asc' }, { county: 'asc' }, { siruta: 'asc' }] });
  return rows.map(toApi);
}

export async function getRule(prisma: PrismaClient, id: string): Promise<SyncRule> {
  const r = await prisma.gisSyncRule.findUnique({ where: { id } });
  if (!r) throw errors.notFound('Regula de sincronizare nu există.');
  return toApi(r);
}

/** The catalogue's spelling of a county ("covasna" → "Covasna"); 400 when the store has no such county. */
async function canonicalCounty(db: Db, county: string): Promise<string> {
  const spelled = await countySpelling(db, county);
  if (spelled === null) throw errors.badRequest('Județul nu există în baza locală.', [{ field: 'county', problem: `Județ necunoscut: ${county}` }]);
  return spelled;
}

async function checkUat(db: Db, siruta: number): Promise<void> {
  if (!(await uatsBySiruta(db, [siruta])).has(siruta)) throw errors.badRequest('UAT-ul nu există în baza locală.', [{ field: 'siruta', problem: `SIRUTA necunoscut: ${siruta}` }]);
}

export async function createRule(prisma: PrismaClient, db: Db, input: RuleInput, now = Date.now()): Promise<SyncRule> {
  const county = input.scope === 'county' ? await canonicalCounty(db, input.county!) : null;
  if (input.scope === 'uat') await checkUat(db, input.siruta!);
  try {
    const r = await prisma.gisSyncRule.create({
      data: {
        scope: input.scope,
        siruta: input.scope === 'uat' ? input.siruta! : null,
        county,
        frequency: input.frequency,
        priority: input.priority ?? 5,
        windows: (input.windows ?? []) as object[],
        steps: orderSteps(input.steps ?? [...STEP_ORDER]),
        enabled: input.enabled ?? true,
      },
    });
    await refreshNextDue(prisma, db, now, [r.id]);
    return getRule(prisma, r.id);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate({ ...input, county });
    throw err;
  }
}

export async function updateRule(prisma: PrismaClient, db: Db, id: string, patch: Partial<Omit<RuleInput, 'scope' | 'siruta' | 'county'>>, now = Date.now()): Promise<SyncRule> {
  await getRule(prisma, id);
  await prisma.gisSyncRule.update({
    where: { id },
    data: {
      ...(patch.frequency ? { frequency: patch.frequency } : {}),
      ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
      ...(patch.windows ? { windows: patch.windows as object[] } : {}),
      ...(patch.steps ? { steps: orderSteps(patch.steps) } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    },
  });
  await refreshNextDue(prisma, db, now, [id]);
  return getRule(prisma, id);
}

export async function deleteRule(prisma: PrismaClient, id: string): Promise<void> {
  const r = await prisma.gisSyncRule.deleteMany({ where: { id } });
  if (r.count === 0) throw errors.notFound('Regula de sincronizare nu există.');
}

/** One UAT rule per UAT of a county (those that already have one are left alone). */
export async function bulkCreateForCounty(
  prisma: PrismaClient,
  db: Db,
  input: Omit<RuleInput, 'scope' | 'siruta'> & { county: string },
  now = Date.now(),
): Promise<{ county: string; created: SyncRule[]; skipped: number[] }> {
  const county = await canonicalCounty(db, input.county);
  const sirutas = await uatsOfCounty(db, county);
  const existing = new Set((await prisma.gisSyncRule.findMany({ where: { scope: 'uat', siruta: { in: sirutas } } })).map((r) => r.siruta));
  const created: string[] = [];
  const skipped: number[] = [];
  for (const siruta of sirutas) {
    if (existing.has(siruta)) {
      skipped.push(siruta);
      continue;
    }
    try {
      const r = await prisma.gisSyncRule.create({
        data: {
          scope: 'uat',
          siruta,
          frequency: input.frequency,
          priority: input.priority ?? 5,
          windows: (input.windows ?? []) as object[],
          steps: orderSteps(input.steps ?? [...STEP_ORDER]),
          enabled: input.enabled ?? true,
        },
      });
      created.push(r.id);
    } catch (err) {
      // A concurrent create of the same UAT's rule: theirs stands.
      if (!isUniqueViolation(err)) throw err;
      skipped.push(siruta);
    }
  }
  await refreshNextDue(prisma, db, now, created);
  const rows = await prisma.gisSyncRule.findMany({ where: { id: { in: created } }, orderBy: { siruta: 'asc' } });
  return { county, created: rows.map(toApi), skipped };
}

// ---- the scheduler's view ---------------------------------------------------------------------

export interface DueUat {
  siruta: number;
  name: string;
  county: string | null;
  source: 'uat' | 'county' | 'default';
  ruleId: string | null;
  frequency: Frequency;
  priority: number;
  steps: StepCode[];
  lastSyncAt: string | null;
  dueAt: string | null;
  /** When it will start: the due time inside the rule's windows (default tier: the auto-refresh window). */
  runAt: string | null;
}

/** UATs a rule governs plus the UATs that hold features, each with its last successful sync. */
function candidateUats(db: Db, rules: readonly SyncRule[], includeDefault: boolean): Promise<SyncCandidate[]> {
  return syncCandidates(db, {
    sirutas: rules.filter((r) => r.scope === 'uat').map((r) => r.siruta!),
    counties: rules.filter((r) => r.scope === 'county').map((r) => r.county!),
    withFeatures: includeDefault,
  });
}

/**
 * What is due when (GET /api/landreg/sync-rules/scheduler): every governed UAT with its resolved
 * rule, due time and start time, earliest start first. `includeDefault` adds the UATs holding
 * features that only the global default governs.
 */
export async function dueUats(prisma: PrismaClient, db: Db, now: number, opts: { includeDefault: boolean }): Promise<DueUat[]> {
  const [rules, defaultFrequency] = await Promise.all([listRules(prisma), getDefaultFrequency(prisma)]);
  const likes = rules.map(asLike);
  const out: DueUat[] = [];
  for (const u of await candidateUats(db, rules, opts.includeDefault)) {
    const rule = resolveRule(u, likes, defaultFrequency);
    const s = scheduleFor(rule, u.lastSync ? u.lastSync.getTime() : null, now);
    // The default tier runs in the auto-refresh nights, not at any hour.
    const runAt = rule.source === 'default' && s.dueAt !== null ? nextOpenAt(AUTO_REFRESH_WINDOWS, Math.max(s.dueAt, now)) : s.runAt;
    out.push({
      siruta: u.siruta,
      name: u.name,
      county: u.county,
      source: rule.source,
      ruleId: rule.ruleId,
      frequency: rule.frequency,
      priority: rule.priority,
      steps: rule.source === 'default' ? DEFAULT_STEPS : rule.steps,
      lastSyncAt: u.lastSync?.toISOString() ?? null,
      dueAt: s.dueAt === null ? null : new Date(s.dueAt).toISOString(),
      runAt: runAt === null ? null : new Date(runAt).toISOString(),
    });
  }
  const key = (d: DueUat) => (d.runAt ? Date.parse(d.runAt) : Number.MAX_SAFE_INTEGER);
  return out.sort((a, b) => key(a) - key(b) || a.priority - b.priority || a.siruta - b.siruta);
}

/** UATs whose rule says "start now" (due, inside a window), in start order (priority 1 first). */
export async function dueNow(prisma: PrismaClient, db: Db, now: number): Promise<DueUat[]> {
  const all = await dueUats(prisma, db, now, { includeDefault: false });
  return all
    .filter((d) => d.source !== 'default' && d.runAt !== null && Date.parse(d.runAt) <= now)
    .map((d) => ({ ...d, dueAtMs: Date.parse(d.dueAt!) }))
    .sort((a, b) => byPriority({ ...a, dueAt: a.dueAtMs }, { ...b, dueAt: b.dueAtMs }))
    .map(({ dueAtMs: _d, ...d }) => d);
}

/** Keeps `nextDueAt` true: the earliest start among each rule's UATs (all rules, or the given ones). */
export async function refreshNextDue(prisma: PrismaClient, db: Db, now: number, ids?: string[]): Promise<void> {
  if (ids && ids.length === 0) return;
  const due = await dueUats(prisma, db, now, { includeDefault: false });
  const rules = await prisma.gisSyncRule.findMany({ where: ids ? { id: { in: ids } } : {}, select: { id: true, nextDueAt: true } });
  for (const r of rules) {
    const starts = due.filter((d) => d.ruleId === r.id && d.runAt).map((d) => Date.parse(d.runAt!));
    const next = starts.length ? new Date(Math.min(...starts)) : null;
    if ((next?.getTime() ?? null) !== (r.nextDueAt?.getTime() ?? null)) await prisma.gisSyncRule.update({ where: { id: r.id }, data: { nextDueAt: next } });
  }
}

/** The scheduler started a UAT of this rule. */
export async function markRuleRun(prisma: PrismaClient, ruleId: string, at: Date): Promise<void> {
  await prisma.gisSyncRule.updateMany({ where: { id: ruleId }, data: { lastRunAt: at } });
}
