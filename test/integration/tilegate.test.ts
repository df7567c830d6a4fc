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
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { closePool, getPool } from '../../domain/db/pool';
import { freeLoopbackPort } from '../../domain/net/loopback';
import { bumpTileVersion } from '../../domain/tiles/versions';
import { plantTileTestData, rawRequest, removeTileTestData, sessionCookie, startTestApp, type PlantedTileData } from '../helpers/tilesFixtures';
import { until } from '../helpers/wait';
import { answeredByGate as answered, gateCounter, startGate, stopGate, type Gate } from '../helpers/tilegate';

const SIRUTA = 997008;

let app: { url: string; close(): Promise<void> };
let gate: Gate;
let planted: PlantedTileData;

const rendered = () => gateCounter(gate.metrics, 'tilegate_tile_cache_misses_total');

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
    const before = await answered(gate);
    const first = await rawGet(gate.url, tilePath(), { cookie: user, 'accept-encoding': 'gzip' });
    expect(first.status).toBe(200);
    expect(await answered(gate)).toBe(before);

    const renders = await rendered();
    const second = await rawGet(gate.url, tilePath(), { cookie: user, 'accept-encoding': 'gzip' });
    expect(second.status).toBe(200);
    expect(await answered(gate)).toBe(before + 1);
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
    const before = await answered(gate);
    const again = await rawGet(gate.url, tilePath(), { cookie: user, 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(await answered(gate)).toBe(before + 1);

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
    const before = await answered(gate);
    expect((await rawGet(gate.url, tilePath(), { cookie: user })).status).toBe(200);
    expect(await answered(gate)).toBe(before + 1);
    // Signed out through the gateway, as the browser does (a same-origin POST).
    const out = await fetch(`${gate.url}/auth/logout`, { method: 'POST', headers: { cookie: user, origin: gate.url }, redirect: 'manual' });
    expect(out.status).toBe(303);
    const after = await fetch(`${gate.url}${tilePath()}`, { headers: { cookie: user } });
    expect(after.status).toBe(401);
  });

  test('a session that runs out without a write (its absolute expiry): no tile past the window, renewed through the web process until then', async () => {
    // A 2 s window instead of 30 s: renewed after 1 s of a map's use.
    const short = await startGate(app.url, { plan: { sessionWindowMs: 2_000 } });
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
      expect(await gateCounter(short.metrics, 'tilegate_session_renewals_total')).toBeGreaterThanOrEqual(2);
      expect(await gateCounter(short.metrics, 'tilegate_tile_cache_hits_total')).toBeGreaterThan(5);
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
    const lone = await startGate(`http://127.0.0.1:${await freeLoopbackPort()}`, { ready: false });
    try {
      const res = await fetch(`${lone.url}/api/version`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: 'upstream_error', message: expect.stringMatching(/nu răspunde/) });
    } finally {
      stopGate(lone);
    }
  });
});
