/**
 * The shared portal session (spec 3.1, CONTRACT.md section 4): login, session state and
 * connect/disconnect, explicit health check. One server-side session serves every user.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { errors } from '../../domain/errors';
import { PortalMaintenanceError, SessionState, type LandregService } from '../../domain/landreg/service';
import { config } from '../../domain/config';
import type { SessionContext } from '../../domain/auth/rules';
import { requireAdmin } from '../auth/guards';
import { tokensEqual } from '../../domain/crypto/tokens';
import { childLogger } from '../../domain/log';
import { withinDeadline } from '../http/deadline';
import { defineRoute } from '../http/route';
import { start } from '../../temporal/jobs';

const log = childLogger('landreg-session');
const TAGS = ['landreg'];

const Credentials = z.object({
  username: z.string().min(1).max(200).optional(),
  password: z.string().min(1).max(200).optional(),
});

/** Spec 3.1: on the first connection with missing county data, a county refresh starts in the background. */
async function refreshCountiesIfMissing(landreg: LandregService): Promise<void> {
  if (!(await landreg.countyDataMissing())) return;
  await start('uat-catalog-refresh', {}, { existing: 'accept' });
}

/**
 * The shared portal account serves every user, so only an administrator may point it at another
 * account or drop it (issue 13). Anyone may (re)connect the account already in use: the stored
 * one, else the configured LANDREG_USERNAME. Only an administrator may sign in with a password
 * other than the configured account's (issue 40): a non-admin's guesses would each be a portal
 * sign-in under the office's account.
 */
async function assertMayReplace(landreg: LandregService, auth: SessionContext | undefined, creds: z.infer<typeof Credentials>): Promise<void> {
  if (auth?.isAdmin) return;
  if (creds.password !== undefined && !tokensEqual(creds.password, config.landreg.password)) {
    requireAdmin(auth, 'Doar administratorii se pot conecta la portalul de cadastru cu altă parolă decât cea a contului configurat.');
  }
  if (creds.username === undefined) return;
  const current = await landreg.portalSession();
  const account = current.username ?? config.landreg.username;
  if (creds.username !== account) requireAdmin(auth, 'Doar administratorii pot schimba contul comun al portalului de cadastru.');
}

type Http = Parameters<typeof withinDeadline>[0];

/** Connect (spec 3.1): 503 portal_maintenance while the portal is in maintenance. */
async function connect(landreg: LandregService, http: Http, auth: SessionContext | undefined, creds: z.infer<typeof Credentials>) {
  await assertMayReplace(landreg, auth, creds);
  try {
    await withinDeadline(http, () => landreg.connect(creds));
  } catch (err) {
    if (err instanceof PortalMaintenanceError) await landreg.recordPortalHealth({ available: false, maintenance: true });
    throw err;
  }
  await refreshCountiesIfMissing(landreg).catch((err) => log.warn({ err: (err as Error).message }, 'county refresh not started'));
  return landreg.sessionState();
}

export function registerLandregSessionRoutes(router: Router, landreg: LandregService): void {
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/login',
      summary: 'Conectare la portalul de cadastru (sesiunea comună a serverului)',
      tags: TAGS,
      auth: 'session',
      body: Credentials,
      response: { description: 'Starea sesiunii după conectare', schema: SessionState },
      failures: {
        403: 'Alt cont decât cel folosit acum, sau altă parolă decât a contului configurat: doar administratorii',
        429: 'Peste limita cererilor către portal, per utilizator sau în total (Retry-After)',
        422: 'Portalul a refuzat datele de autentificare',
        503: 'Portalul este în mentenanță (portal_maintenance)',
      },
    },
    async ({ body, auth, req, res }) => connect(landreg, { req, res }, auth, body),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/session',
      summary: 'Starea sesiunii comune cu portalul de cadastru',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Starea sesiunii', schema: SessionState },
    },
    async () => landreg.sessionState(),
  );

  const SessionAction = Credentials.extend({ action: z.enum(['connect', 'disconnect']) });
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/session',
      summary: 'Conectare sau deconectare de la portalul de cadastru',
      tags: TAGS,
      auth: 'session',
      body: SessionAction,
      response: { description: 'Starea sesiunii', schema: SessionState },
      failures: {
        403: 'Deconectarea, schimbarea contului comun sau altă parolă decât a contului configurat: doar administratorii',
        429: 'Peste limita cererilor către portal, per utilizator sau în total (Retry-After)',
        409: 'Deconectare refuzată: rulează lucrări de sincronizare sau export (jobs_running, runningJobs)',
        422: 'Portalul a refuzat datele de autentificare',
        503: 'Portalul este în mentenanță (portal_maintenance)',
      },
    },
    async ({ body, auth, req, res }) => {
      if (body.action === 'connect') return connect(landreg, { req, res }, auth, body);
      // Running jobs first: the disconnect is refused for everyone then (CONTRACT.md 409, the same
      // count GET shows anyone); only a disconnect that would happen needs an administrator.
      const jobs = await landreg.runningPortalJobs();
      if (jobs.length > 0) {
        throw errors.conflict('jobs_running', 'Nu vă puteți deconecta cât timp rulează lucrări de sincronizare sau export.', {
          runningJobs: jobs.length,
          details: jobs,
        });
      }
      requireAdmin(auth, 'Doar administratorii pot deconecta contul comun al portalului de cadastru.');
      await withinDeadline({ req, res }, () => landreg.disconnect());
      return landreg.sessionState();
    },
  );

  const Health = z.object({
    portalAvailable: z.boolean(),
    portalMaintenance: z.boolean(),
    consecutiveFailures: z.number().int(),
    checkedAt: z.string(),
    status: z.number().int().optional(),
  });
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/health',
      summary: 'Verificare explicită a disponibilității portalului de cadastru',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Rezultatul verificării', schema: Health },
    },
    async ({ req, res }) => {
      const h = await withinDeadline({ req, res }, () => landreg.ping());
      const { consecutiveFailures } = await landreg.recordPortalHealth(h);
      return {
        portalAvailable: h.available,
        portalMaintenance: h.maintenance,
        consecutiveFailures,
        checkedAt: new Date().toISOString(),
        ...(h.status !== undefined ? { status: h.status } : {}),
      };
    },
  );
}
