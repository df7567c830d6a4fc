/**
 * TILE_SERVER_URL mode: the same /tiles routes forward to an external tile server with Martin's
 * URL shapes. The upstream here is a small real HTTP server that renders from the same PostGIS
 * views (as Martin would) and records what it was asked; the app under test is created after
 * the variable is set, since config is read once at import.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';

const seen: Array<{ url: string; cookie?: string; inm?: string }> = [];
let upstream: http.Server;
let upstreamUrl: string;
let app: { url: string; close(): Promise<void> };
let cookie: string;
let planted: { tile: { z: number; x: number; y: number } };
let mod: {
  getPool: typeof import('../../domain/db/pool').getPool;
  closePool: typeof import('../../domain/db/pool').closePool;
  fixtures: typeof import('../helpers/tilesFixtures');
};

const PROXY_SIRUTA = 997002;

beforeAll(async () => {
  // config is read once, at its first import: set TILE_SERVER_URL before importing anything of
  // ours, so the upstream picks its port first and gets the renderer afterwards.
  const render: { tile?: typeof import('../../domain/tiles/mvt').renderTile } = {};
  upstream = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', cookie: req.headers.cookie, inm: req.headers['if-none-match'] as string | undefined });
    const m = /^\/([a-z0-9_]+)\/(\d+)\/(\d+)\/(\d+)$/.exec(req.url ?? '');
    if (m) {
      if (req.headers['if-none-match'] === '"martin-etag"') {
        res.writeHead(304, { etag: '"martin-etag"' }).end();
        return;
      }
      render.tile!(mod!.getPool(), { source: m[1], z: Number(m[2]), x: Number(m[3]), y: Number(m[4]) }).then(
        (body) => {
          if (body.length === 0) res.writeHead(204).end();
          else res.writeHead(200, { 'content-type': 'application/x-protobuf', etag: '"martin-etag"', 'cache-control': 'max-age=7' }).end(body);
        },
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (req.url === '/gis_terenuri') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ tilejson: '3.0.0', tiles: [`${upstreamUrl}/gis_terenuri/{z}/{x}/{y}`], minzoom: 10, maxzoom: 20, name: 'martin' }),
      );
      return;
    }
    if (req.url === '/broken/1/0/0') {
      res.writeHead(503).end('down');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

  process.env.TILE_SERVER_URL = upstreamUrl;
  render.tile = (await import('../../domain/tiles/mvt')).renderTile;
  const fixtures = await import('../helpers/tilesFixtures');
  const pool = await import('../../domain/db/pool');
  mod = { getPool: pool.getPool, closePool: pool.closePool, fixtures };
  planted = await fixtures.plantTileTestData(pool.getPool(), PROXY_SIRUTA);
  app = await fixtures.startTestApp();
  cookie = await fixtures.sessionCookie(pool.getPool(), 'dan@birou.ro');
});

afterAll(async () => {
  delete process.env.TILE_SERVER_URL;
  await mod?.fixtures.removeTileTestData(mod.getPool(), PROXY_SIRUTA);
  await app?.close();
  await new Promise<void>((r) => upstream?.close(() => r()));
  await mod?.closePool();
});

test('tiles are streamed from the external tile server with its headers, without the user cookie', async () => {
  const { z, x, y } = planted.tile;
  const res = await fetch(`${app.url}/tiles/gis_terenuri/${z}/${x}/${y}.pbf`, { headers: { cookie } });
  expect(res.status).toBe(200);
  expect(res.headers.get('etag')).toBe('"martin-etag"');
  expect(res.headers.get('cache-control')).toBe('max-age=7');
  expect(res.headers.get('content-type')).toBe('application/x-protobuf');
  const tile = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())));
  expect(tile.layers.gis_terenuri.length).toBeGreaterThanOrEqual(3);
  const hit = seen.find((s) => s.url === `/gis_terenuri/${z}/${x}/${y}`);
  expect(hit).toBeDefined();
  expect(hit?.cookie).toBeUndefined();

  const revalidated = await fetch(`${app.url}/tiles/gis_terenuri/${z}/${x}/${y}`, { headers: { cookie, 'if-none-match': '"martin-etag"' } });
  expect(revalidated.status).toBe(304);
});

test('TileJSON comes from the upstream with the tile URLs rewritten to this origin; failures map to 404/502; no session 401', async () => {
  const res = await fetch(`${app.url}/tiles/gis_terenuri`, { headers: { cookie } });
  expect(res.status).toBe(200);
  const tj = (await res.json()) as { tilejson: string; tiles: string[]; maxzoom: number; name: string };
  expect(tj.tilejson).toBe('3.0.0');
  expect(tj.maxzoom).toBe(20);
  expect(tj.tiles[0]).toMatch(/\/tiles\/gis_terenuri\/\{z\}\/\{x\}\/\{y\}$/);
  expect(tj.tiles[0]).not.toContain(upstreamUrl);

  // A source the upstream lacks, and one it is not allowed to be asked for.
  expect((await fetch(`${app.url}/tiles/gis_cladiri`, { headers: { cookie } })).status).toBe(404);
  expect((await fetch(`${app.url}/tiles/broken/1/0/0`, { headers: { cookie } })).status).toBe(404);
  expect((await fetch(`${app.url}/tiles/gis_terenuri/1/0/0`)).status).toBe(401);
  expect(seen.some((s) => s.url.startsWith('/broken'))).toBe(false);
});
