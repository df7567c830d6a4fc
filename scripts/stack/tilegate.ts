/**
 * The tile gateway in the launcher (issue 45, docs/tiles.md "The tile gateway"): native/tilegate,
 * built by scripts/bootstrap, listens on PORT in front of the web process and answers the map's
 * tiles itself. What it renders is the web process's: the plan written here holds every tile
 * source's statement at every zoom of its range (domain/tiles/mvt.ts gatewayTilePlan) and the
 * settings the web process reads from its configuration, so there is one definition of a tile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config, projectRoot } from '../../domain/config';
import { gatewayTilePlan } from '../../domain/tiles/service';
import { TILE_SESSION_SETTINGS } from '../../domain/db/pool';
import { SESSION_COOKIE } from '../../api/auth/cookies';
import { SESSION_TOUCH_INTERVAL_MS } from '../../api/auth/sessionStore';
import { startProcess, httpOk, type Proc } from './proc';

export const TILEGATE_BINARY = path.join(projectRoot, 'native', 'tilegate', 'tilegate');

/** Whether the launcher puts the gateway in front (never in proxy mode, where Martin renders). */
export const gatewayEnabled = () => config.tiles.gateway && !config.tiles.serverUrl;

/**
 * How long the gateway serves a Cookie header after the web process last served it a tile (it asks
 * again after half of it while the map is in use). What changes a session by a write (a sign-out,
 * a failed refresh, new claims) reaches the gateway at once through `app_sessions_changed`; this
 * window bounds only what time alone changes: the absolute expiry, 30 days after sign-in, is
 * overrun by at most this much, and the idle timeout cannot run out while a map asks (each renewal
 * goes through the web process's session read, which touches the row once a minute). Short enough
 * for that, long enough that a map's bursts do not pay a renewal in the web process every few
 * seconds beside them (docs/bench/tiles.md, 2026-11-30).
 */
export const GATEWAY_SESSION_WINDOW_MS = SESSION_TOUCH_INTERVAL_MS / 2;

export function tilegatePlan() {
  return {
    ...gatewayTilePlan(),
    sessionCookie: SESSION_COOKIE,
    sessionWindowMs: GATEWAY_SESSION_WINDOW_MS,
    versionTtlMs: config.tiles.versionTtlMs,
    maxAgeSeconds: config.tiles.maxAgeSeconds,
    cacheMaxEntries: config.tiles.cacheMaxEntries,
    cacheMaxBytes: config.tiles.cacheMaxBytes,
    poolMax: config.tiles.dbPoolMax,
    replicaRetryMs: config.db.replicaRetryMs,
    statementTimeoutMs: config.db.statementTimeoutMs,
    connectTimeoutMs: config.db.connectTimeoutMs,
    runtimeParams: TILE_SESSION_SETTINGS,
  };
}

/** What the web process is told when the gateway fronts it: its own port, and where the gateway's metrics are. */
export function webBehindGateway(): Record<string, string> {
  return {
    WEB_LISTEN_PORT: String(config.tiles.internalPort),
    TILEGATE_METRICS_URL: `http://127.0.0.1:${config.tiles.gatewayMetricsPort}/metrics`,
  };
}

/**
 * Threads the gateway runs Go code on: half the host's cores, since PostgreSQL beside it does most
 * of a tile's work. On two cores one thread spent a fifth less CPU a tile than two (fewer hand-offs
 * between threads, each a context switch that this VM class charges dearly; docs/bench/tiles.md,
 * 2026-11-30) at the same latency. GOMAXPROCS in the environment wins.
 */
const gatewayThreads = () => Math.max(1, Math.ceil(os.availableParallelism() / 2));

export function startTilegate(): Proc {
  if (!fs.existsSync(TILEGATE_BINARY)) throw new Error(`${path.relative(projectRoot, TILEGATE_BINARY)} is missing: run scripts/bootstrap (npm start does)`);
  const planFile = path.join(config.dataDir, 'tilegate-plan.json');
  fs.writeFileSync(planFile, JSON.stringify(tilegatePlan()));
  return startProcess('tilegate', TILEGATE_BINARY, [], {
    env: {
      ...process.env,
      SERVICE_NAME: 'tilegate',
      GOMAXPROCS: process.env.GOMAXPROCS ?? String(gatewayThreads()),
      TILEGATE_PLAN: planFile,
      TILEGATE_LISTEN: `:${config.app.port}`,
      TILEGATE_UPSTREAM: `http://127.0.0.1:${config.tiles.internalPort}`,
      TILEGATE_METRICS_LISTEN: `127.0.0.1:${config.tiles.gatewayMetricsPort}`,
      TILEGATE_DATABASE_URL: config.db.url,
      TILEGATE_DATABASE_READ_URL: config.db.readUrl,
    },
  });
}

/** Ready once the app answers through it. */
export const tilegateReady = () => httpOk(`http://127.0.0.1:${config.app.port}/api/version`);
