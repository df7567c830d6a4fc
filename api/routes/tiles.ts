/**
 * The /tiles area (CONTRACT.md section 4, "tiles"): MVT tiles, TileJSON per source, the catalog,
 * the PMTiles overview with Range support, and the rebuild webhook of the overview builder this
 * stack ships (EXTERNAL-SERVICES.md "Tile archive"). Every route needs a session (spec 4: "all
 * routes need a user session unless stated") except the webhook, which a machine calls with a
 * bearer token. With TILE_SERVER_URL set, TileJSON and tiles are proxied (domain/tiles/proxy.ts).
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { defineRoute, isLiveSession, reply } from '../http/route';
import { requireBearer } from '../auth/bearer';
import { config } from '../../domain/config';
import type { Store } from '../../domain/db/store';
import { readOn } from '../../domain/db/readers';
import { AppError, errors } from '../../domain/errors';
import {
  TILE_SOURCE_NAMES,
  etagMatches,
  getTile,
  proxyEnabled,
  proxyTileServer,
  readArchive,
  tileCatalog,
  tileJson,
  tileSource,
  tileTag,
  tileVersion,
  tileVersions,
  type ProxiedAnswer,
  type TileAddress,
} from '../../domain/tiles/service';
import { getTemporalClient } from '../../temporal/client';
import { recordRequest } from '../../domain/metrics';
import { sessionOfCookie } from '../auth';
import { SESSION_COOKIE } from '../auth/cookies';
import { startOverviewArchiveBuild } from '../../temporal/tileArchive';

const gunzipAsync = promisify(gunzip);

export const MVT_CONTENT_TYPE = 'application/vnd.mapbox-vector-tile';

const tileCacheControl = () => `private, max-age=${config.tiles.maxAgeSeconds}`;

const SourceParam = z.object({ source: z.string().min(1).max(64) });
const TileParams = z.object({
  source: z.string().min(1).max(64),
  z: z.string().regex(/^\d{1,2}$/, 'zoom: număr întreg'),
  x: z.string().regex(/^\d{1,8}$/, 'x: număr întreg'),
  // The map may ask `/<y>.pbf` or `/<y>.mvt` (Martin and most clients accept both forms).
  y: z.string().regex(/^\d{1,8}(\.(pbf|mvt))?$/, 'y: număr întreg, opțional cu .pbf sau .mvt'),
});

const TileJsonBody = z.object({
  tilejson: z.literal('3.0.0'),
  tiles: z.array(z.string()),
  minzoom: z.number(),
  maxzoom: z.number(),
  bounds: z.array(z.number()),
  vector_layers: z.array(z.object({ id: z.string(), fields: z.record(z.string(), z.string()) })),
});

const CatalogBody = z.object({
  sources: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      kind: z.enum(['uat', 'feature', 'status']),
      minzoom: z.number(),
      maxzoom: z.number(),
      layer: z.string(),
      fields: z.array(z.string()),
      tilejson: z.string(),
      tiles: z.string(),
      version: z.number(),
    }),
  ),
  overview: z.object({ url: z.string(), format: z.literal('pmtiles') }),
  mode: z.enum(['postgis', 'proxy']),
});

function knownSource(source: string): void {
  if (!tileSource(source)) {
    throw errors.notFound(`Sursa de tile-uri „${source}” nu există.`);
  }
}

/** Streams to the end before returning, so defineRoute sees the response as sent. */
async function sendProxied(res: Response, answer: ProxiedAnswer): Promise<void> {
  res.status(answer.status).set(answer.headers);
  if (!answer.body) {
    res.end();
    return;
  }
  await pipeline(answer.body, res);
}

export function tilesRouter(store: Store): Router {
  const router = Router();

  defineRoute(
    router,
    {
      method: 'post',
      path: '/tiles/rebuild-webhook',
      summary: 'Start the PMTiles overview build workflow, for an outside caller (bearer TILE_REBUILD_WEBHOOK_TOKEN); our own rebuild job starts it as a child',
      tags: ['tiles'],
      auth: 'public',
      gate: (req) => requireBearer(req, config.tiles.rebuildWebhookToken),
      response: { status: 202, description: 'Build started (buildId: its workflow id)', schema: z.object({ buildId: z.string(), message: z.string() }) },
      failures: { 401: 'Missing or wrong bearer token', 409: 'A build is already running (a valid state, spec 3.6)' },
    },
    async () => {
      const s = await startOverviewArchiveBuild(await getTemporalClient());
      if (!s.started) throw errors.conflict('already_running', 'Reconstruirea arhivei rulează deja.');
      return reply(202, { buildId: s.jobId, message: 'Reconstruirea arhivei a pornit.' });
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/tiles/catalog',
      summary: 'Every tile source with its TileJSON and tile URLs, and the overview archive',
      tags: ['tiles'],
      auth: 'session',
      response: { description: 'Catalog', schema: CatalogBody },
    },
    async () => tileCatalog(await readOn(store, (r) => tileVersions(r.pool))),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/tiles/overview.pmtiles',
      summary: 'PMTiles overview archive (UAT boundaries, parcels), with HTTP Range support',
      tags: ['tiles'],
      auth: 'session',
      response: { description: 'The archive (206 for a Range request)', contentType: 'application/vnd.pmtiles' },
      failures: { 404: 'The archive was not built yet', 416: 'Range not satisfiable' },
    },
    async ({ req, res }) => {
      const read = await readArchive({
        range: typeof req.headers.range === 'string' ? req.headers.range : undefined,
        ifNoneMatch: typeof req.headers['if-none-match'] === 'string' ? req.headers['if-none-match'] : undefined,
        head: req.method === 'HEAD',
      });
      if (read.status === 404) throw errors.notFound('Arhiva PMTiles nu a fost construită încă.');
      if (read.status === 416) {
        throw new AppError(416, 'range_not_satisfiable', 'Intervalul cerut nu există în arhivă.');
      }
      res.status(read.status).set(read.headers);
      if (!read.body) {
        res.end();
        return;
      }
      // A reader that has what it needs may close early; that is not a server error.
      await pipeline(read.body, res).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
      });
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/tiles/:source',
      summary: `TileJSON 3.0.0 of one tile source (${TILE_SOURCE_NAMES.join(', ')})`,
      tags: ['tiles'],
      auth: 'session',
      params: SourceParam,
      response: { description: 'TileJSON', schema: TileJsonBody },
      failures: { 404: 'Unknown source', 502: 'External tile server failed (proxy mode)' },
    },
    async ({ params, res }) => {
      knownSource(params.source);
      res.set('Cache-Control', tileCacheControl());
      const ours = tileJson(params.source, (await readOn(store, (r) => tileVersion(r.pool, params.source))).version);
      if (!proxyEnabled()) return ours;
      // The upstream's TileJSON knows its own data (bounds, zooms); its tile URLs are replaced by
      // ours so the browser stays on this origin.
      // No validators forwarded: we need the body to rewrite it.
      const up = await proxyTileServer(encodeURIComponent(params.source), { accept: 'application/json' });
      if (up.status !== 200 || !up.body) {
        up.body?.resume();
        if (up.status === 404) throw errors.notFound(`Sursa de tile-uri „${params.source}” nu există pe serverul de tile-uri.`);
        throw errors.upstream('Serverul de tile-uri a răspuns neașteptat.', `HTTP ${up.status}`);
      }
      const chunks: Buffer[] = [];
      for await (const c of up.body) chunks.push(Buffer.from(c as Uint8Array));
      const upstream = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      return { ...ours, ...upstream, tilejson: '3.0.0', tiles: ours.tiles };
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/tiles/:source/:z/:x/:y',
      summary: 'One Mapbox Vector Tile (optional .pbf/.mvt suffix); weak ETag by data version, 304 on If-None-Match, 204 when empty',
      tags: ['tiles'],
      auth: 'session',
      params: TileParams,
      response: { description: 'MVT', contentType: MVT_CONTENT_TYPE },
      failures: { 204: 'Empty tile', 304: 'Not modified', 404: 'Unknown source', 502: 'External tile server failed (proxy mode)' },
    },
    async ({ params, req, res }) => {
      knownSource(params.source);
      const addr = { source: params.source, z: Number(params.z), x: Number(params.x), y: Number.parseInt(params.y, 10) };
      if (proxyEnabled()) {
        const path = `${encodeURIComponent(addr.source)}/${addr.z}/${addr.x}/${addr.y}`;
        await sendProxied(res, await proxyTileServer(path, req.headers));
        return;
      }
      await sendTile(store, addr, req, res);
    },
  );

  return router;
}

/**
 * The rendered (or cached) tile as the route answers it: 304, 204, or the MVT, gzip when accepted.
 * Written with Node's own writeHead/end: Express's send (its type lookup, freshness check and
 * header walk) was a few per cent of a sparse tile's time in the web process (issue 45), and
 * what it would add here is already settled (the ETag and its 304 above, the length below).
 */
async function sendTile(store: Store, addr: TileAddress, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const inm = typeof req.headers['if-none-match'] === 'string' ? req.headers['if-none-match'] : undefined;
  // The version and the tile from one server (domain/db/readers.ts).
  const answer = await readOn(store, async (readers) => {
    if (inm) {
      const tag = await tileTag(readers.pool, addr);
      if (etagMatches(inm, tag.etag)) return { notModified: tag.etag };
    }
    return { tile: await getTile(readers, addr) };
  });
  const headers: OutgoingHttpHeaders = { 'Cache-Control': tileCacheControl(), Vary: 'Cookie, Accept-Encoding' };
  if (!answer.tile) {
    res.writeHead(304, { ...headers, ETag: answer.notModified }).end();
    return;
  }
  const tile = answer.tile;
  headers.ETag = tile.etag;
  headers['X-Tile-Cache'] = tile.cached ? 'hit' : 'miss';
  if (tile.gzipped.length === 0) {
    res.writeHead(204, headers).end();
    return;
  }
  headers['Content-Type'] = MVT_CONTENT_TYPE;
  let body = tile.gzipped;
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    headers['Content-Encoding'] = 'gzip';
  } else {
    // On the thread pool: a client without gzip must not hold the event loop for its tile.
    body = await gunzipAsync(tile.gzipped);
  }
  headers['Content-Length'] = body.length;
  res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
}

/** The tile route's path as TileParams accepts it (source: a known name, checked apart). */
const TILE_PATH = /^\/tiles\/([A-Za-z0-9_]{1,64})\/(\d{1,2})\/(\d{1,8})\/(\d{1,8})(?:\.(?:pbf|mvt))?(?:\?|$)/;
const TILE_ROUTE = '/tiles/:source/:z/:x/:y';

/** What the front door hands a request it does not answer to: the whole Express stack. */
export type FrontDoor = (req: IncomingMessage, res: ServerResponse, stack: () => void) => void;

/**
 * Tile requests ahead of Express itself (issue 45; api/app.ts puts it before the app's handle). A
 * map view sends dozens of tile requests a second. Walking Express's stack (its mounts and
 * layers, zod over four path parameters already matched here) was a fifth of a sparse tile's time
 * in the web process; with the route ahead of the stack, Express's init before it (the prototype
 * swap, after which much of Node's own code reads the request through slower, generic property
 * lookups) still cost 15 % of a tile's CPU (docs/bench/tiles.md). The door answers only what it
 * answers exactly as the tile route does: a GET of a known source's tile with a live session
 * cookie, no `Authorization` header (a personal token and the wrong-token limit go the long way),
 * not in proxy mode. The cookie parser is the app's own instance and the session is read by the
 * session middleware's own function (sessionOfCookie). Anything else goes to the stack untouched
 * before anything is written: no cookie, an expired or unknown one (the stack answers 401 and
 * clears it), a failed refresh, and an error while rendering, which the stack then meets again
 * and answers with the contract's error body. The request metrics are kept under the route's
 * template.
 */
export function tileFrontDoor(store: Store, cookies: RequestHandler): FrontDoor {
  return (req, res, stack) => {
    if (req.method !== 'GET' || req.headers.authorization !== undefined || req.headers.cookie === undefined) return stack();
    const m = TILE_PATH.exec(req.url ?? '');
    if (!m || !tileSource(m[1]) || proxyEnabled()) return stack();
    const started = process.hrtime.bigint();
    const addr = { source: m[1], z: Number(m[2]), x: Number(m[3]), y: Number(m[4]) };
    // cookie-parser reads only the headers and calls back at once; the stack's own parser then
    // finds req.cookies set and keeps it.
    const withCookies = req as Request;
    cookies(withCookies, res as Response, () => undefined);
    const token = (withCookies.cookies as Record<string, unknown> | undefined)?.[SESSION_COOKIE];
    if (typeof token !== 'string' || token === '') return stack();
    sessionOfCookie(store.pool, token)
      .then((auth) => {
        if (!isLiveSession(auth, TILE_ROUTE)) return stack();
        return sendTile(store, addr, req, res).then(() =>
          recordRequest(TILE_ROUTE, 'GET', res.statusCode, Number(process.hrtime.bigint() - started) / 1e9),
        );
      })
      .catch(() => (res.headersSent ? res.destroy() : stack()));
  };
}
