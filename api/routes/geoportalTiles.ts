/**
 * Tile-side routes under /api/geoportal: the idempotent view setup/optimize DDL of spec 4.1 and
 * the tile infrastructure monitor (archive rebuild and its status). The map's own routes (search,
 * feature, export, ...) live in their own file.
 *
 * Decision: the four DDL routes are admin-only. The spec lists them without a role, but they
 * change the store's schema (drop and create views, add columns, replace a trigger); an ordinary
 * user has no reason to run them. Rebuild and status need only a session: the monitor page is a
 * utility (spec 1.7) and a rebuild is a singleton job that cannot pile up.
 */
import type { Router } from 'express';
import type { Store } from '../../domain/db/store';
import { z } from 'zod';
import { defineRoute, reply } from '../http/route';
import { optimizeTiles, optimizeViews, setupEnrichmentViews, setupViews, uatViewsExist } from '../../domain/store/views';
import { TILE_REBUILD_WORKFLOW_ID } from '../../temporal/common/singletons';
import { startTileRebuild, tileInfraStatus } from '../../temporal/tileMonitor';
import type { TilesService } from '../../domain/tiles/service';

const ViewState = z.object({ name: z.string(), exists: z.boolean(), current: z.boolean() });

const Build = z.object({
  id: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  phase: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  sizeBytes: z.number().nullable(),
  uatCount: z.number().nullable(),
  parcelCount: z.number().nullable(),
  error: z.string().nullable(),
});

const StatusBody = z.object({
  archive: z
    .object({ key: z.string(), url: z.string(), lastModified: z.string(), ageSeconds: z.number(), sizeBytes: z.number(), etag: z.string() })
    .nullable(),
  lastBuild: Build.nullable(),
  builds: z.array(Build),
  job: z
    .object({
      jobId: z.string(),
      status: z.enum(['running', 'done', 'failed']),
      startedAt: z.string(),
      finishedAt: z.string().optional(),
      progress: z.any().optional(),
      result: z.any().optional(),
      error: z.string().optional(),
    })
    .nullable(),
  tiles: z.object({
    mode: z.enum(['postgis', 'proxy']),
    serverUrl: z.string().nullable(),
    builder: z.enum(['ours', 'webhook']),
    webhookUrl: z.string().nullable(),
    cache: z.object({ entries: z.number(), bytes: z.number(), hits: z.number(), misses: z.number() }),
    versions: z.record(z.string(), z.number()),
  }),
  checkedAt: z.string(),
});

const admin = { tags: ['geoportal'], auth: 'admin' as const };

export function registerGeoportalTileRoutes(router: Router, store: Store, tiles: TilesService): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/setup-views',
      summary: 'Whether the UAT zoom views exist (spec 4.1)',
      ...admin,
      response: { description: 'View state', schema: z.object({ exists: z.boolean(), views: z.array(ViewState) }) },
    },
    () => uatViewsExist(store.pool),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/geoportal/setup-views',
      summary: 'Create the UAT zoom views gis_uats_z0/_z5/_z8/_z12; idempotent (spec 4.1)',
      ...admin,
      response: { description: 'What was created', schema: z.object({ created: z.array(z.string()), existing: z.array(z.string()) }) },
    },
    () => setupViews(store.pool),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/geoportal/optimize-views',
      summary: 'UAT zoom columns, backfill, indexes, views on the columns, trigger (the five steps of spec 4.1)',
      ...admin,
      response: {
        description: 'What each step did',
        schema: z.object({
          columnsAdded: z.array(z.string()),
          backfilled: z.number(),
          indexesCreated: z.array(z.string()),
          views: z.array(z.string()),
          trigger: z.string(),
        }),
      },
    },
    () => optimizeViews(store.pool),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/geoportal/optimize-tiles',
      summary: 'Recreate the feature views with the slim columns only, cascading to dependent views (spec 4.1)',
      ...admin,
      response: { description: 'Recreated views', schema: z.object({ recreated: z.array(z.string()), columns: z.array(z.string()) }) },
    },
    async () => {
      const r = await optimizeTiles(store.pool);
      return { recreated: r.recreated, columns: [...r.columns] };
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/geoportal/setup-enrichment-views',
      summary: 'Drop and create gis_terenuri_status and gis_cladiri_status (spec 4.1)',
      ...admin,
      response: { description: 'Recreated views', schema: z.object({ recreated: z.array(z.string()), columns: z.array(z.string()) }) },
    },
    () => setupEnrichmentViews(store.pool),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/geoportal/tiles/rebuild',
      summary: `Request a rebuild of the PMTiles overview (workflow ${TILE_REBUILD_WORKFLOW_ID}, spec 3.6); administrators only`,
      tags: ['geoportal'],
      auth: 'admin',
      response: { status: 202, description: 'Rebuild job started', schema: z.object({ jobId: z.string(), progressUrl: z.string() }) },
      failures: { 409: 'already_running: a rebuild job runs; body has jobId' },
    },
    async () => reply(202, await startTileRebuild()),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/tiles/status',
      summary: 'Tile infrastructure monitor: archive age and size, builds, rebuild job progress, tile cache (addresses and error output for administrators only)',
      tags: ['geoportal'],
      auth: 'session',
      response: { description: 'Status', schema: StatusBody },
    },
    ({ auth }) => tileInfraStatus(tiles, { technical: auth!.isAdmin }),
  );
}
