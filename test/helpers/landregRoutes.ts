/**
 * A landreg route test on a sync rig (./landregStack.ts): the real app (createApp) on a free port,
 * its people signed in, one JSON call as any of them, and the legacy write gate's tests.
 */
import { expect, test } from '@jest/globals';
import { createApp } from '../../api/app';
import { closePool } from '../../domain/db/pool';
import { closeTemporalClient } from '../../temporal/client';
import { callJson, listenApp } from './appServer';
import { rigAppDeps, startSyncRig, type SyncRig } from './landregStack';
import { createTestSessionRecord, type TestSession } from './session';

/** Who signs in to a landreg route test: the email, on the central API path or not, an administrator or not. */
export type RoutePerson = [email: string, useCentralApi: boolean, isAdmin?: boolean];

export interface LandregRoutes<Who extends string> {
  rig: SyncRig;
  /** A JSON call to the app as one of its people (the first listed by default), or with a bearer token instead. */
  api(method: string, path: string, opts?: { body?: unknown; who?: Who; bearer?: string }): ReturnType<typeof callJson>;
  /** Ends the sessions, the server and the rig, then the process's Temporal client and pool (the app's job starter opens them). */
  stop(): Promise<void>;
}

/**
 * A landreg route test: a sync rig (`rigOpts` as `startSyncRig` takes them), the app on it on a
 * free port, and its people signed in, each on the legacy or the central API path whatever the
 * configured lists say of the email; an administrator is in the admin group too. Sessions live in
 * the rig's store, as every table the routes read.
 */
export async function startLandregRoutes<Who extends string>(people: Record<Who, RoutePerson>, rigOpts: Parameters<typeof startSyncRig>[0] = {}): Promise<LandregRoutes<Who>> {
  const rig = await startSyncRig(rigOpts);
  const { server, base } = await listenApp(createApp(rigAppDeps(rig)));
  const sessions = new Map<Who, TestSession>();
  const stop = async () => {
    await new Promise((r) => server.close(r));
    await Promise.all([...sessions.values()].map((s) => s.end()));
    await rig.stop();
    await closeTemporalClient();
    await closePool();
  };
  try {
    for (const [who, [email, useCentralApi, isAdmin = false]] of Object.entries(people) as Array<[Who, RoutePerson]>) {
      sessions.set(who, await createTestSessionRecord({ email, db: rig.db, groups: isAdmin ? ['admin'] : [], flags: { useCentralApi, basicPanel: false, isAdmin } }));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const first = [...sessions.keys()][0];
  return {
    rig,
    api: (method, path, opts = {}) =>
      callJson(base, method, path, { body: opts.body, ...(opts.bearer ? { bearer: opts.bearer } : { cookie: sessions.get(opts.who ?? first)!.cookie }) }),
    stop,
  };
}

/**
 * Spec 5.9's legacy write gate on a router: each write answers 410 `gone_central_api` to a
 * central-API user before its body is validated; each read stays open to them.
 */
export function legacyGateTests(api: LandregRoutes<'central'>['api'], writes: Array<[method: string, path: string]>, reads: string[]): void {
  test.each(writes)('%s %s answers 410 to a central-API user before validating the body', async (method, path) => {
    const r = await api(method, path, { who: 'central', body: { nonsense: true } });
    expect(r.status).toBe(410);
    expect(r.body.error).toBe('gone_central_api');
  });

  test('reads stay open to central-API users', async () => {
    for (const path of reads) expect({ path, status: (await api('GET', path, { who: 'central' })).status }).toEqual({ path, status: 200 });
  });
}
