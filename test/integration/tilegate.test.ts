/**
 * The tile gateway (native/tilegate, issue 45) in front of the real app, as the launcher runs it:
 * the binary scripts/bootstrap builds, the plan scripts/stack/tilegate.ts writes, the app's own
 * database. What a user of the map and of everything else on the port would check: tiles the same
 * as the web process's own (features, ETag, headers, 304, 204, gzip or not), a session's tiles
 * answered by the gateway only after the web process accepted that session and no longer once it
 * signed out, every other request passed through unchanged (the client's address, the Host header
 * for the same-origin check, bodies, error bodies), and a web process that is down answered with
 * the contract's error body.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { bumpTileVersion } from '../../domain/tiles/versions';
import { TILEGATE_BINARY, tilegatePlan } from '../../scripts/stack/tilegate';
import { plantTileTestData, rawRequest, removeTileTestData, sessionCookie, startTestApp, type PlantedTileData } from '../helpers/tilesFixtures';
import { until } from '../helpers/wait';

const SIRUTA = 997008;

let app: { url: string; close(): Promise<void> };
let gate: { url: string; metrics: string; proc: ChildProcess; dir: string };
let planted: PlantedTileData;

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** The gateway in front of `upstream`; `ready`: wait until the app answers through it. */
async function startGate(upstream: string, ready = true, planOverrides: Record<string, unknown> = {}): Promise<typeof gate> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilegate-test-'));
  const plan = path.join(dir, 'plan.json');
  fs.writeFileSync(plan, JSON.stringify({ ...tilegatePlan(), ...planOverrides }));
  const [port, metricsPort] = [await freePort(), await freePort()];
  const proc = spawn(TILEGATE_BINARY, [], {
    env: {
      ...process.env,
      TILEGATE_PLAN: plan,
      TILEGATE_LISTEN: `127.0.0.1:${port}`,
      TILEGATE_UPSTREAM: upstream,
      TILEGATE_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      TILEGATE_DATABASE_URL: config.db.url,
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
  // Up once it hears the session changes (before that every tile goes to the web process, which
  // the tests below would read as the gateway not answering) and, when asked, the app answers
  // through it.
  await until(
    'the tile gateway to answer',
    async () => (await counter(metrics, 'tilegate_session_listener_up')) === 1 && (!ready || (await fetch(`${url}/api/version`).then((r) => r.ok, () => false))),
  );
  return { url, metrics, proc, dir };
}

function stopGate(g: typeof gate | undefined): void {
  g?.proc.kill('SIGTERM');
  if (g) fs.rmSync(g.dir, { recursive: true, force: true });
}

async function counter(metricsUrl: string, name: string): Promise<number> {
  const text = await fetch(metricsUrl).then((r) => r.text(), () => '');
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}
const rendered = () => counter(gate.metrics, 'tilegate_tile_cache_misses_total');
const answeredByGate = async () =>
  (await counter(gate.metrics, 'tilegate_tile_cache_misses_total')) +
  (await counter(gate.metrics, 'tilegate_tile_cache_hits_total')) +
  (await counter(gate.metrics, 'tilegate_tile_not_modified_total'));

const rawGet = (base: string, p: string, headers: Record<string, string>) => rawRequest(`${base}${p}`, headers);

/** The planted parcels of this file in a z16 tile: cadastral refs, sorted (other files plant beside them). */
function ourParcels(mvt: ArrayBuffer | Buffer): string[] {
  const tile = new VectorTile(new PbfReader(new Uint8Array(mvt)));
  const layer = tile.layers.gis_terenuri;
  if (!layer) return [];
  return Array.from({ length: layer.length }, (_, i) => layer.feature(i))
    .filter((f) => f.properties.siruta === SIRUTA)
    .map((f) => String(f.properties.cadastral_ref))
    .sort();
}

beforeAll(async () => {
  planted = await plantTileTestData(getPool(), SIRUTA);
  app = await startTestApp();
  gate = await startGate(app.url);
});

afterAll(async () => {
  stopGate(gate);
  await removeTileTestData(getPool(), SIRUTA);
  await app?.close();
  await closePool();
});

const tilePath = () => `/tiles/gis_terenuri/${planted.tile.z}/${planted.tile.x}/${planted.tile.y}`;

describe('the tile gateway', () => {
  test("a session's first tile is the web process's; the next ones the gateway's, the same tile with the same headers", async () => {
    const user = await sessionCookie(getPool(), 'tg-first@birou.ro');
    const before = await answeredByGate();
    const first = await rawGet(gate.url, tilePath(), { cookie: user, 'accept-encoding': 'gzip' });
    expect(first.status).toBe(200);
    expect(await answeredByGate()).toBe(before);

    const renders = await rendered();
    const second = await rawGet(gate.url, tilePath(), { cookie: user, 'accept-encoding': 'gzip' });
    expect(second.status).toBe(200);
    expect(await answeredByGate()).toBe(before + 1);
    expect(await rendered()).toBe(renders + 1);
    // The web process's own answer, asked directly, for the comparison.
    const direct = await rawGet(app.url, tilePath(), { cookie: user, 'accept-encoding': 'gzip' });
    for (const h of ['etag', 'cache-control', 'vary', 'content-type', 'content-encoding']) expect([h, second.headers[h]]).toEqual([h, direct.headers[h]]);
    expect(second.headers['content-length']).toBe(String(second.body.length));
    const { gunzipSync } = await import('node:zlib');
    expect(ourParcels(gunzipSync(second.body))).toEqual(planted.parcels.map((p) => p.cadastralRef).sort());
    expect(ourParcels(gunzipSync(second.body))).toEqual(ourParcels(gunzipSync(direct.body)));

    // Asked again: from the gateway's cache; without gzip: the plain MVT.
    const third = await rawGet(gate.url, tilePath(), { cookie: user });
    expect(third.headers['x-tile-cache']).toBe('hit');
    expect(third.headers['content-encoding']).toBeUndefined();
    expect(ourParcels(third.body)).toEqual(ourParcels(gunzipSync(direct.body)));
  });

  test('a revalidation is a 304 from the gateway; a bump of the source is a new ETag there at once', async () => {
    const user = await sessionCookie(getPool(), 'tg-etag@birou.ro');
    const first = await rawGet(gate.url, tilePath(), { cookie: user });
    const etag = String(first.headers.etag);
    const before = await answeredByGate();
    const again = await rawGet(gate.url, tilePath(), { cookie: user, 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(await answeredByGate()).toBe(before + 1);

    await bumpTileVersion(getPool(), ['gis_terenuri']);
    await until('the bump to reach the gateway (TILE_VERSION_TTL_MS)', async () => (await rawGet(gate.url, tilePath(), { cookie: user, 'if-none-match': etag })).status === 200, 5_000);
    const fresh = await rawGet(gate.url, tilePath(), { cookie: user });
    expect(fresh.headers.etag).not.toBe(etag);
    expect(fresh.headers.etag).toBe((await rawGet(app.url, tilePath(), { cookie: user })).headers.etag);
  });

  test('outside the source range a 204, an address past the zoom the 400 of the web process', async () => {
    const user = await sessionCookie(getPool(), 'tg-edges@birou.ro');
    await rawGet(gate.url, tilePath(), { cookie: user });
    const empty = await rawGet(gate.url, '/tiles/gis_terenuri/3/4/2', { cookie: user });
    expect(empty.status).toBe(204);
    const bad = await fetch(`${gate.url}/tiles/gis_terenuri/16/70000/1`, { headers: { cookie: user } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'bad_request' });
  });

  test('no session, a dead one, and one that signed out: the 401 of the web process, never a tile', async () => {
    const none = await fetch(`${gate.url}${tilePath()}`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: 'unauthorized' });
    const dead = await fetch(`${gate.url}${tilePath()}`, { headers: { cookie: 'cgp_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } });
    expect(dead.status).toBe(401);

    const user = await sessionCookie(getPool(), 'tg-out@birou.ro');
    await rawGet(gate.url, tilePath(), { cookie: user });
    const before = await answeredByGate();
    expect((await rawGet(gate.url, tilePath(), { cookie: user })).status).toBe(200);
    expect(await answeredByGate()).toBe(before + 1);
    // Signed out through the gateway, as the browser does (a same-origin POST).
    const out = await fetch(`${gate.url}/auth/logout`, { method: 'POST', headers: { cookie: user, origin: gate.url }, redirect: 'manual' });
    expect(out.status).toBe(303);
    const after = await fetch(`${gate.url}${tilePath()}`, { headers: { cookie: user } });
    expect(after.status).toBe(401);
  });

  test('a session that runs out without a write (its absolute expiry): no tile past the window, renewed through the web process until then', async () => {
    // A 2 s window instead of 30 s: renewed after 1 s of a map's use.
    const short = await startGate(app.url, true, { sessionWindowMs: 2_000 });
    try {
      const user = await sessionCookie(getPool(), 'tg-expiry@birou.ro');
      const token = user.slice(user.indexOf('=') + 1);
      const { sessionIdFor } = await import('../../api/auth/sessionStore');
      await getPool().query(`UPDATE app_sessions SET expires_at = now() + interval '3 seconds' WHERE id = $1`, [sessionIdFor(token)]);
      const expiresAt = Date.now() + 3_000;
      const statuses: Array<{ at: number; status: number }> = [];
      for (;;) {
        const res = await rawGet(short.url, tilePath(), { cookie: user });
        statuses.push({ at: Date.now(), status: res.status });
        if (res.status !== 200 || Date.now() > expiresAt + 10_000) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const last = statuses[statuses.length - 1];
      expect(last.status).toBe(401);
      // Not a tile later than the window after the expiry (plus a renewal's round trip and a poll).
      const lastTile = statuses.filter((s) => s.status === 200).pop()!;
      expect(lastTile.at).toBeLessThan(expiresAt + 2_000 + 1_000);
      expect(await counter(short.metrics, 'tilegate_session_renewals_total')).toBeGreaterThanOrEqual(2);
      expect(await counter(short.metrics, 'tilegate_tile_cache_hits_total')).toBeGreaterThan(5);
    } finally {
      stopGate(short);
    }
  });

  test('everything else passes through: the client as the web process sees it, the body, the error body', async () => {
    // GET /metrics is open to a caller on this host: the gateway names its client (here loopback)
    // in X-Forwarded-For, and a client's own claim is kept to its left, as the web process
    // would read it without the gateway (TRUST_PROXY: loopback).
    expect((await fetch(`${gate.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${gate.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(401);
    expect((await fetch(`${app.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(401);
    const admin = await sessionCookie(getPool(), 'tg-admin@birou.ro', { admin: true });
    // The web process reads the client from the gateway's X-Forwarded-For (TRUST_PROXY loopback).
    const res = await fetch(`${gate.url}/api/auth/session`, { headers: { cookie: admin } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { email: 'tg-admin@birou.ro' } });
    const bad = await fetch(`${gate.url}/api/registratura/entries`, {
      method: 'POST',
      headers: { cookie: admin, origin: gate.url, 'content-type': 'application/json' },
      body: '{"not json',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    // Another origin's write is refused by the web process, whose Host is the gateway's.
    const foreign = await fetch(`${gate.url}/api/registratura/entries`, {
      method: 'POST',
      headers: { cookie: admin, origin: 'https://elsewhere.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
  });

  test('a web process that does not answer: 502 with the contract error body', async () => {
    const lone = await startGate(`http://127.0.0.1:${await freePort()}`, false);
    try {
      const res = await fetch(`${lone.url}/api/version`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: 'upstream_error', message: expect.stringMatching(/nu răspunde/) });
    } finally {
      stopGate(lone);
    }
  });
});
