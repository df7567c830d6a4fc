/**
 * Sync jobs and store read routes of the parcel sync (spec 4.4, CONTRACT.md section 4;
 * docs/sync.md). Writes are legacy routes: gated with 410 for central-API users (spec 5.9).
 */
import { LayerId, Siruta } from '../http/schemas';
import { failureMessage } from '../../temporal/common/failures';
import type { Router } from 'express';
import { z } from 'zod';
import { viewerOf, redactRow } from '../../domain/auth/rules';
import { errors } from '../../domain/errors';
import { DEFAULT_SYNC_LAYERS } from '../../domain/landreg/rules';
import type { LandregService } from '../../domain/landreg/service';
import { ALL_COUNTIES_JOB, ALL_COUNTIES_JOB_ID } from '../../temporal/common/singletons';
import { legacyWriteGate } from '../http/gates';
import { requestCaller, withinDeadline } from '../http/deadline';
import { defineRoute, reply } from '../http/route';
import { isRunning, jobProgress, progressUrl, start } from '../../temporal/jobs';
import type { UatSyncResult } from '../../domain/landreg/jobTypes';

const TAGS = ['landreg'];
const GATED = { 410: 'Utilizator pe calea API-ului central (gone_central_api)' };

const Accepted = z.object({ jobId: z.string(), progressUrl: z.string() });
const accepted = (jobId: string) => reply(202, { jobId, progressUrl: progressUrl(jobId) });

const SyncRun = z.object({
  id: z.string(),
  siruta: z.number().int(),
  layerId: z.string(),
  mode: z.enum(['delta', 'full']),
  trigger: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  remoteCount: z.number().int().nullable(),
  localCountBefore: z.number().int().nullable(),
  added: z.number().int(),
  removed: z.number().int(),
  reenrichMarked: z.number().int(),
  changed: z.number().int().openapi({ description: 'Stored features whose cadastral number, area or geometry changed' }),
  workflowId: z.string().nullable(),
  error: z.string().nullable(),
});

export function registerLandregSyncRoutes(router: Router, landreg: LandregService): void {
  const SyncBody = z
    .object({
      siruta: Siruta,
      layers: z.array(LayerId).min(1).max(31).optional(),
      layer: LayerId.optional(),
      forceFullSync: z.boolean().optional(),
    })
    .refine((b) => b.layers || b.layer, { message: 'Indicați stratul (layer) sau straturile (layers).', path: ['layers'] });
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/sync',
      summary: 'Sincronizare incrementală a straturilor unui UAT (așteaptă rezultatul)',
      tags: TAGS,
      auth: 'session',
      gate: legacyWriteGate,
      body: SyncBody,
      response: { description: 'O înregistrare GisSyncRun pe strat', schema: z.object({ runs: z.array(SyncRun) }) },
      failures: { ...GATED, 409: 'O sincronizare a acestui UAT rulează deja (already_running, jobId)', 502: 'Portalul a răspuns cu o eroare' },
    },
    async ({ body, auth }) => {
      const layers = [...new Set(body.layers ?? [body.layer!])];
      const { handle } = await start(
        'sync',
        { siruta: body.siruta, layers, mode: 'base', forceFullSync: body.forceFullSync, trigger: 'manual' },
        { startedBy: auth!.user.id, portalStarts: landreg.portalStarts },
      );
      try {
        const result = (await handle.result()) as UatSyncResult;
        return { runs: result.runs.map(({ pages: _p, ...run }) => run) };
      } catch (err) {
        throw errors.upstream('Sincronizarea a eșuat.', failureMessage(err).slice(0, 200));
      }
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/sync-background',
      summary: 'Sincronizare în fundal a unui UAT (base sau magic); progres prin /api/landreg/progress',
      tags: TAGS,
      auth: 'session',
      gate: legacyWriteGate,
      body: z.object({
        siruta: Siruta,
        mode: z.enum(['base', 'magic']).default('base'),
        layers: z.array(LayerId).min(1).max(31).optional(),
        forceFullSync: z.boolean().optional(),
      }),
      response: { status: 202, description: 'Lucrare acceptată', schema: Accepted },
      failures: { ...GATED, 409: 'O sincronizare în fundal a acestui UAT rulează deja (already_running, jobId)' },
    },
    async ({ body, auth }) => {
      const { jobId } = await start(
        'sync-background',
        { siruta: body.siruta, layers: body.layers ?? [...DEFAULT_SYNC_LAYERS], mode: body.mode, forceFullSync: body.forceFullSync, trigger: 'manual' },
        { startedBy: auth!.user.id, portalStarts: landreg.portalStarts },
      );
      return accepted(jobId);
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/sync-county',
      summary: 'Sincronizare în fundal a tuturor UAT-urilor unui județ; notificare la final',
      tags: TAGS,
      auth: 'session',
      gate: legacyWriteGate,
      body: z.object({ county: z.string().trim().min(2).max(100) }),
      response: { status: 202, description: 'Lucrare acceptată', schema: Accepted },
      failures: { ...GATED, 404: 'Județ necunoscut în baza locală', 409: 'Rulează sincronizarea tuturor județelor (all_counties_running) sau a acestui județ (already_running)' },
    },
    async ({ body, auth }) => {
      const county = await landreg.findCounty(body.county);
      if (!county) throw errors.notFound(`Județul „${body.county}” nu există în baza locală.`);
      const { jobId } = await start('sync-county', { county: county.county, userId: auth?.user.id, trigger: 'county' }, {
        startedBy: auth!.user.id,
        portalStarts: landreg.portalStarts,
        precondition: async () => {
          if (await isRunning(ALL_COUNTIES_JOB_ID)) {
            throw errors.conflict('all_counties_running', 'Rulează sincronizarea tuturor județelor; sincronizarea pe județ este blocată până la final.', {
              jobId: ALL_COUNTIES_JOB_ID,
            });
          }
        },
      });
      return accepted(jobId);
    },
  );

  /** The whole-store jobs: a route that only starts one (202 with its progress URL). */
  const startRoute = (path: string, summary: string, auth: 'session' | 'cron', begin: (userId: string | undefined) => ReturnType<typeof start>) =>
    defineRoute(
      router,
      {
        method: 'post',
        path,
        summary,
        tags: TAGS,
        auth,
        gate: legacyWriteGate,
        response: { status: 202, description: 'Lucrare acceptată', schema: Accepted },
        failures: { ...GATED, 409: 'Rulează deja (already_running, jobId)' },
      },
      async ({ auth }) => accepted((await begin(auth?.user.id)).jobId),
    );
  const by = (userId: string | undefined) => ({ ...(userId ? { startedBy: userId } : {}), portalStarts: landreg.portalStarts });
  startRoute('/api/landreg/sync-all-counties', 'Sincronizarea tuturor județelor, unul după altul (o singură lucrare)', 'session', (userId) =>
    start(ALL_COUNTIES_JOB.kind, { userId }, by(userId)),
  );
  startRoute('/api/landreg/refresh-all', 'Reîmprospătează pe rând toate UAT-urile din baza locală (magic peste 30% îmbogățire)', 'session', (userId) =>
    start('refresh-all', {}, by(userId)),
  );
  startRoute('/api/landreg/auto-refresh', 'Intrare cron: reîmprospătarea automată (token CRON_SECRET)', 'cron', () => start('auto-refresh', {}, { portalStarts: landreg.portalStarts }));

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/progress',
      summary: 'Progresul unei lucrări (păstrat 1 h pentru lucrări în fundal, 60 s pentru celelalte)',
      tags: TAGS,
      auth: 'session',
      query: z.object({ jobId: z.string().min(3).max(300) }),
      response: {
        description: 'Înregistrarea de progres',
        schema: z.object({
          jobId: z.string(),
          kind: z.string(),
          status: z.enum(['running', 'done', 'failed']),
          phase: z.string(),
          current: z.number(),
          total: z.number(),
          percent: z.number(),
          message: z.string(),
          startedAt: z.string(),
          finishedAt: z.string().optional(),
          result: z.unknown().optional(),
          error: z.string().optional(),
        }),
      },
      failures: { 404: 'Lucrare necunoscută sau progres expirat' },
    },
    async ({ query, auth }) => jobProgress(query.jobId, { userId: auth!.user.id, isAdmin: auth!.isAdmin }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/sync-status',
      summary: 'Ultimele sincronizări pe UAT și strat',
      tags: TAGS,
      auth: 'session',
      query: z.object({ siruta: Siruta.optional() }),
      response: { description: 'Ultima rulare și ultima reușită, cu numărul de obiecte' },
      failures: { 429: 'rate_limited: without siruta (the whole store) a large read, past HEAVY_READ_MAX_PER_USER or HEAVY_READ_MAX_CONCURRENT' },
    },
    async ({ req, res, query }) => landreg.syncStatus(query.siruta, requestCaller({ req, res })),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/db-summary',
      summary: 'Rezumat pe UAT și strat, inclusiv imobilele fără geometrie',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Rezumat' },
      failures: { 429: 'rate_limited: a large read of the whole store, past HEAVY_READ_MAX_PER_USER or HEAVY_READ_MAX_CONCURRENT' },
    },
    async ({ req, res }) => landreg.dbSummary(requestCaller({ req, res })),
  );

  // Store summaries: one small read each, no input.
  for (const [path, summary, description, read] of [
    ['/api/landreg/stats', 'Numărul de UAT-uri, parcele, clădiri și mărimea bazei', 'Statistici', landreg.storeStats],
    ['/api/landreg/layers/summary', 'Numărul de obiecte pe strat', 'Straturi', landreg.layersSummary],
  ] as const) {
    defineRoute(router, { method: 'get', path, summary, tags: TAGS, auth: 'session', response: { description } }, async () => read());
  }

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/features',
      summary: 'Obiectele din baza locală (paginat)',
      tags: TAGS,
      auth: 'session',
      query: z.object({
        siruta: Siruta.optional(),
        layerId: LayerId.optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        offset: z.coerce.number().int().min(0).default(0),
      }),
      response: { description: '{items, total}' },
      failures: { 429: 'rate_limited: the caller (or everyone) has too many large reads of the store in flight (HEAVY_READ_MAX_PER_USER, HEAVY_READ_MAX_CONCURRENT)' },
    },
    async ({ req, res, query }) => landreg.listFeatures(query, requestCaller({ req, res })),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/debug-fields',
      summary: 'Toate câmpurile portalului pentru o parcelă și clădirile ei, plus starea locală (doar administratori)',
      tags: TAGS,
      // A debugging view of raw rows: administrators only, and still through the viewer rule.
      auth: 'admin',
      query: z.object({ siruta: Siruta, cadRef: z.string().trim().min(1).max(100) }),
      response: { description: '{portal:{parcels, buildings}, local}' },
      failures: { 503: 'Portalul este în mentenanță' },
    },
    async ({ query, auth, req, res }) => {
      const viewer = viewerOf(auth);
      const { parcels, buildings, local } = await withinDeadline({ req, res }, () => landreg.debugFields(query.siruta, query.cadRef));
      return {
        siruta: query.siruta,
        cadRef: query.cadRef,
        portal: { parcels: parcels.map((f) => f.attributes), buildings: buildings.map((f) => f.attributes) },
        local: local.map((row) => redactRow(row, viewer)),
      };
    },
  );
}
