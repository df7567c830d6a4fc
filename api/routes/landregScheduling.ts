/**
 * Scheduling routes (spec 2.6, 3.4, 4.4; CONTRACT.md sections 3 and 4; docs/scheduling.md):
 *   GET|POST  /api/landreg/sync-rules              list, create (410 for central-API users)
 *   POST      /api/landreg/sync-rules/bulk         one UAT rule per UAT of a county (gated)
 *   GET|PATCH /api/landreg/sync-rules/scheduler    {defaultFrequency} + what is due when (PATCH gated)
 *   GET|PATCH|DELETE /api/landreg/sync-rules/:id   one rule (writes gated)
 *   GET|POST  /api/landreg/weekend-sync            queue and state; actions add|remove|trigger|pause|resume|reset
 * Every write is the office's global configuration: administrators only (403 `forbidden`; issue
 * 25), after the 410 gate. Reads are open to every signed-in user.
 * Rule windows that cross midnight are written with an end hour above 24 (23:00–28:00).
 */
import type { Router } from 'express';
import { z } from 'zod';
import { errors } from '../../domain/errors';
import { FREQUENCIES, STEP_CODES, STEP_STATES, WEEKEND_STEPS, sessionWeekendWindow, windowProblems } from '../../domain/scheduling/rules';
import type { SchedulingService } from '../../domain/scheduling/service';
import { readJob, signalJob, start } from '../../temporal/jobs';
import { WEEKEND_SYNC_WORKFLOW_ID } from '../../temporal/common/singletons';
import type { WeekendState } from '../../domain/scheduling/jobTypes';
import { legacyWriteGate } from '../http/gates';
import { PG_INT_MAX, Siruta as SirutaParam } from '../http/schemas';
import { defineRoute } from '../http/route';

const TAGS = ['landreg', 'scheduling'];

const GATED = { 410: 'Utilizator pe calea API-ului central (gone_central_api)' };

const Frequency = z.enum(FREQUENCIES, { message: `Frecvența trebuie să fie una dintre: ${FREQUENCIES.join(', ')}.` });
const Step = z.enum(STEP_CODES, { message: 'Pas necunoscut: pașii sunt T (terenuri), C (clădiri), N (fără geometrie), E (îmbogățire).' });
const Steps = z
  .array(Step)
  .min(1, 'Alegeți cel puțin un pas.')
  .max(4)
  .refine((s) => new Set(s).size === s.length, 'Un pas apare de mai multe ori.');
const Priority = z.number({ message: 'Prioritatea este un număr între 1 și 10.' }).int().min(1, 'Prioritatea este între 1 (cea mai mare) și 10.').max(10, 'Prioritatea este între 1 (cea mai mare) și 10.');
const Window = z
  .object({
    days: z.array(z.number().int()),
    start: z.string().max(5),
    end: z.string().max(5),
  })
  .superRefine((w, ctx) => {
    for (const p of windowProblems(w)) ctx.addIssue({ code: 'custom', path: [p.path], message: p.message });
  })
  .openapi({ description: 'Zilele (1 = luni) în care începe fereastra, ora de început și de sfârșit (ora României); peste miezul nopții: sfârșit peste 24, de ex. 23:00–28:00' });
const Windows = z.array(Window).max(20);
/** JSON bodies of rules take a number only (the shared schema also coerces query strings). */
const Siruta = z.number().int().positive().max(PG_INT_MAX);

const RuleBody = z
  .object({
    scope: z.enum(['uat', 'county']),
    siruta: Siruta.optional(),
    county: z.string().trim().min(2).max(100).optional(),
    frequency: Frequency,
    priority: Priority.optional(),
    windows: Windows.optional(),
    steps: Steps.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.scope === 'uat' && b.siruta === undefined) ctx.addIssue({ code: 'custom', path: ['siruta'], message: 'O regulă de UAT are nevoie de siruta.' });
    if (b.scope === 'county' && !b.county) ctx.addIssue({ code: 'custom', path: ['county'], message: 'O regulă de județ are nevoie de county.' });
    if (b.scope === 'uat' && b.county) ctx.addIssue({ code: 'custom', path: ['county'], message: 'O regulă de UAT nu are county.' });
    if (b.scope === 'county' && b.siruta !== undefined) ctx.addIssue({ code: 'custom', path: ['siruta'], message: 'O regulă de județ nu are siruta.' });
  });
const PatchBody = z
  .object({ frequency: Frequency.optional(), priority: Priority.optional(), windows: Windows.optional(), steps: Steps.optional(), enabled: z.boolean().optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'Nimic de modificat.');
const BulkBody = z
  .object({ county: z.string().trim().min(2).max(100), frequency: Frequency, priority: Priority.optional(), windows: Windows.optional(), steps: Steps.optional(), enabled: z.boolean().optional() })
  .strict();

const Rule = z.object({
  id: z.string(),
  scope: z.enum(['uat', 'county']),
  siruta: z.number().nullable(),
  county: z.string().nullable(),
  frequency: Frequency,
  priority: z.number(),
  windows: z.array(z.object({ days: z.array(z.number()), start: z.string(), end: z.string() })),
  steps: z.array(Step),
  enabled: z.boolean(),
  lastRunAt: z.string().nullable(),
  nextDueAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const IdParams = z.object({ id: z.string() });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function ruleId(id: string): string {
  if (!UUID.test(id)) throw errors.notFound('Regula de sincronizare nu există.');
  return id;
}

const WeekendAction = z
  .object({ action: z.enum(['add', 'remove', 'trigger', 'pause', 'resume', 'reset']), siruta: SirutaParam.optional() })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.action === 'add' || b.action === 'remove') && b.siruta === undefined) ctx.addIssue({ code: 'custom', path: ['siruta'], message: 'Indicați siruta UAT-ului.' });
  });
const StepState = z.enum(STEP_STATES);
const WeekendAnswer = z.object({
  queue: z.array(
    z.object({
      siruta: z.number(),
      name: z.string(),
      steps: z.object(Object.fromEntries(WEEKEND_STEPS.map((s) => [s, StepState])) as Record<(typeof WEEKEND_STEPS)[number], typeof StepState>),
      lastError: z.string().optional(),
      lastRunAt: z.string().nullable(),
    }),
  ),
  syncStatus: z.enum(['idle', 'running', 'waiting_window', 'paused']),
  currentActivity: z.string().nullable(),
  inWeekendWindow: z.boolean(),
  nextWindowStart: z.string().nullable(),
  forced: z.boolean(),
  paused: z.boolean(),
  lastReport: z.object({ at: z.string(), subject: z.string(), text: z.string() }).nullable(),
  jobId: z.string().optional(),
});

/** The session's own view while it runs (its progress detail); null when none runs. */
async function sessionState(): Promise<WeekendState | null> {
  const job = await readJob<WeekendState>(WEEKEND_SYNC_WORKFLOW_ID);
  return (job?.status === 'running' && job.progress?.detail) || null;
}


async function weekendAnswer(scheduling: SchedulingService, now = Date.now()) {
  const [queue, paused, report, session] = await Promise.all([scheduling.listQueue(), scheduling.isPaused(), scheduling.lastReport(), sessionState()]);
  const forced = session?.forced ?? false;
  const w = sessionWeekendWindow(now, forced);
  const syncStatus = paused ? 'paused' : (session?.syncStatus ?? 'idle');
  return {
    queue: queue.map(({ position: _p, ...q }) => q),
    syncStatus,
    currentActivity: session?.currentActivity ?? null,
    inWeekendWindow: w.open,
    nextWindowStart: w.nextStart === null ? null : new Date(w.nextStart).toISOString(),
    forced,
    paused,
    lastReport: report,
  };
}

export function registerSchedulingRoutes(router: Router, scheduling: SchedulingService): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/sync-rules',
      summary: 'Regulile de sincronizare (UAT și județ)',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Regulile, prioritatea 1 întâi', schema: z.object({ items: z.array(Rule), defaultFrequency: Frequency }) },
    },
    async () => {
      const [items, defaultFrequency] = await Promise.all([scheduling.listRules(), scheduling.getDefaultFrequency()]);
      return { items, defaultFrequency };
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/sync-rules',
      summary: 'Creează o regulă de sincronizare pentru un UAT sau un județ',
      tags: TAGS,
      auth: 'admin',
      gate: legacyWriteGate,
      body: RuleBody,
      response: { status: 201, description: 'Regula creată', schema: Rule },
      failures: { ...GATED, 409: 'Ținta are deja o regulă (rule_exists)' },
    },
    async ({ body, res }) => {
      const rule = await scheduling.createRule(body);
      res.status(201);
      return rule;
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/sync-rules/bulk',
      summary: 'Creează câte o regulă de UAT pentru fiecare UAT al unui județ (cele existente rămân)',
      tags: TAGS,
      auth: 'admin',
      gate: legacyWriteGate,
      body: BulkBody,
      response: { status: 201, description: 'Regulile create și UAT-urile sărite', schema: z.object({ county: z.string(), created: z.array(Rule), skipped: z.array(z.number()) }) },
      failures: GATED,
    },
    async ({ body, res }) => {
      const out = await scheduling.bulkCreateForCounty(body);
      res.status(201);
      return out;
    },
  );

  const SchedulerView = z.object({
    defaultFrequency: Frequency,
    due: z.array(
      z.object({
        siruta: z.number(),
        name: z.string(),
        county: z.string().nullable(),
        source: z.enum(['uat', 'county', 'default']),
        ruleId: z.string().nullable(),
        frequency: Frequency,
        priority: z.number(),
        steps: z.array(Step),
        lastSyncAt: z.string().nullable(),
        dueAt: z.string().nullable(),
        runAt: z.string().nullable(),
      }),
    ),
  });
  const schedulerView = async () => {
    const [defaultFrequency, due] = await Promise.all([scheduling.getDefaultFrequency(), scheduling.dueUats(Date.now(), { includeDefault: true })]);
    return { defaultFrequency, due };
  };

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/sync-rules/scheduler',
      summary: 'Frecvența implicită și ce UAT se sincronizează când (regula aplicată: UAT, județ sau implicită)',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Frecvența implicită și UAT-urile în ordinea pornirii', schema: SchedulerView },
    },
    schedulerView,
  );

  defineRoute(
    router,
    {
      method: 'patch',
      path: '/api/landreg/sync-rules/scheduler',
      summary: 'Schimbă frecvența implicită de sincronizare',
      tags: TAGS,
      auth: 'admin',
      gate: legacyWriteGate,
      body: z.object({ defaultFrequency: Frequency }).strict(),
      response: { description: 'Frecvența implicită și UAT-urile în ordinea pornirii', schema: SchedulerView },
      failures: GATED,
    },
    async ({ body }) => {
      await scheduling.setDefaultFrequency(body.defaultFrequency);
      return schedulerView();
    },
  );

  defineRoute(
    router,
    { method: 'get', path: '/api/landreg/sync-rules/:id', summary: 'O regulă de sincronizare', tags: TAGS, auth: 'session', params: IdParams, response: { description: 'Regula', schema: Rule }, failures: { 404: 'Regula nu există' } },
    async ({ params }) => scheduling.getRule(ruleId(params.id)),
  );

  defineRoute(
    router,
    {
      method: 'patch',
      path: '/api/landreg/sync-rules/:id',
      summary: 'Modifică o regulă de sincronizare (frecvență, prioritate, ferestre, pași, activă)',
      tags: TAGS,
      auth: 'admin',
      gate: legacyWriteGate,
      params: IdParams,
      body: PatchBody,
      response: { description: 'Regula modificată', schema: Rule },
      failures: { ...GATED, 404: 'Regula nu există' },
    },
    async ({ params, body }) => scheduling.updateRule(ruleId(params.id), body),
  );

  defineRoute(
    router,
    {
      method: 'delete',
      path: '/api/landreg/sync-rules/:id',
      summary: 'Șterge o regulă de sincronizare',
      tags: TAGS,
      auth: 'admin',
      gate: legacyWriteGate,
      params: IdParams,
      response: { status: 204, description: 'Regula a fost ștearsă' },
      failures: { ...GATED, 404: 'Regula nu există' },
    },
    async ({ params, res }) => {
      await scheduling.deleteRule(ruleId(params.id));
      res.status(204).end();
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/weekend-sync',
      summary: 'Coada de sincronizare de weekend și starea ei',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Coada (pașii fiecărei localități), starea sesiunii, fereastra', schema: WeekendAnswer },
    },
    () => weekendAnswer(scheduling),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/weekend-sync',
      summary: 'Gestionează coada de weekend: add, remove, trigger (pașii cu eroare reluați, pornire imediată), pause, resume, reset',
      tags: TAGS,
      auth: 'admin',
      body: WeekendAction,
      response: { description: 'Coada și starea după acțiune', schema: WeekendAnswer },
      failures: { 404: 'UAT-ul nu este în coadă' },
    },
    async ({ body }) => {
      let jobId: string | undefined;
      switch (body.action) {
        case 'add':
          await scheduling.addCity(body.siruta!);
          break;
        case 'remove':
          await scheduling.removeCity(body.siruta!);
          break;
        case 'pause':
          await scheduling.setPaused(true);
          break;
        case 'resume':
          await scheduling.setPaused(false);
          break;
        case 'reset':
          await scheduling.resetAll(body.siruta);
          break;
        case 'trigger': {
          if (body.siruta) await scheduling.prepareCityTrigger(body.siruta);
          else await scheduling.resetErrors();
          await scheduling.setPaused(false);
          ({ jobId } = await start(
            'weekend-sync',
            { forced: true, runNow: true, ...(body.siruta ? { runNowSiruta: body.siruta } : {}) },
            // A city's own "Pornește" runs that city first, not the queue's first one.
            { signalArgs: body.siruta ? [{ siruta: body.siruta }] : [] },
          ));
          break;
        }
      }
      // The running session looks again; with none, the next window's kick (or a trigger) reads the queue afresh.
      if (body.action !== 'trigger') await signalJob('weekend-sync', 'wake');
      return { ...(await weekendAnswer(scheduling)), ...(jobId ? { jobId } : {}) };
    },
  );
}
