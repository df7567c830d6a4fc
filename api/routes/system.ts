/** Service-level routes: version (public), OpenAPI document (public), infrastructure health. */
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute } from '../http/route';
import { openApiDocument } from '../http/openapi';
import { config } from '../../domain/config';
import type { Store } from '../../domain/db/store';
import { infrastructureHealth } from '../../domain/health';
import { checkTemporal } from '../../temporal/client';
import { TAGS_MODULE_VERSION } from '../../domain/tags/rules';
import { VAULT_MODULE_VERSION } from '../../domain/office/rules';
import { createRequire } from 'node:module';

const remixPkg = createRequire(import.meta.url)('@remix-run/node/package.json') as { version: string };

const VersionBody = z.object({
  commit: z.string(),
  commitShort: z.string(),
  buildTime: z.string(),
  nodeEnv: z.string(),
  cutover: z.boolean(),
  nextVersion: z.string(),
  /** Spec 9.5: the tag manager and vault modules' own versions. */
  modules: z.object({ tags: z.string(), vault: z.string() }),
});

const Probe = z.object({
  ok: z.boolean(),
  ms: z.number(),
  detail: z.string().optional(),
  /** When this process first saw the check in its present state. */
  since: z.string(),
});
const BackupProbe = Probe.extend({ lastAt: z.string().nullable(), ageSeconds: z.number().int().nullable() });
const HealthBody = z.object({
  ok: z.boolean(),
  checkedAt: z.string(),
  checks: z.object({ database: Probe, temporal: Probe, storage: Probe, mail: Probe, portal: Probe, backup: BackupProbe }),
});

export function registerSystemRoutes(router: Router, store: Store): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/version',
      summary: 'Deployed version (spec 4.7, 9.2)',
      tags: ['system'],
      auth: 'public',
      response: { description: 'Build information', schema: VersionBody },
    },
    () => ({
      commit: config.build.commit,
      commitShort: config.build.commit === 'unknown' ? 'unknown' : config.build.commit.slice(0, 7),
      buildTime: config.build.buildTime,
      nodeEnv: config.nodeEnv,
      cutover: config.flags.useCentralApi,
      // The spec's name for "the web framework's version"; ours is Remix.
      nextVersion: `remix ${remixPkg.version}`,
      modules: { tags: TAGS_MODULE_VERSION, vault: VAULT_MODULE_VERSION },
    }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/openapi.json',
      summary: 'This OpenAPI 3.1 document',
      tags: ['system'],
      auth: 'public',
      response: { description: 'OpenAPI 3.1 document' },
    },
    () => openApiDocument(),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/health',
      summary: 'Live state of the database, Temporal, object storage, mail, the land-registry portal and the last backup',
      tags: ['system'],
      auth: 'session',
      response: { description: 'One probe per dependency', schema: HealthBody },
    },
    ({ auth }) => infrastructureHealth(store.pool, checkTemporal, { technical: auth?.isAdmin === true }),
  );
}
