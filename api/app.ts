/**
 * The Express application: API under /api, tiles under /tiles, sign-in under /auth, then the
 * Remix UI (mounted by api/server.ts) on the same origin.
 */
import express, { Router, type Express, type RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import cookieParser from 'cookie-parser';
import { childLogger } from '../domain/log';
import { errors } from '../domain/errors';
import { errorMapper } from './http/errorMapper';
import { jsonBody } from './http/jsonBody';
import { apiRateLimits, pageRateLimit } from './http/rateLimit';
import { requestLog } from './http/requestLog';
import { httpMetrics } from './http/metrics';
import { metricsRouter } from './routes/metrics';
import { sessionMiddleware, sameOriginWrites, authRouter, registerAuthApiRoutes } from './auth';
import { registerSystemRoutes } from './routes/system';
import { registerAdminBackupRoutes } from './routes/adminBackups';
import { registerLandregEnrichmentRoutes } from './routes/landregEnrichment';
import { registerExportRoutes } from './routes/landregExports';
import { registerLandregRoutes } from './routes/landreg';
import { registerSchedulingRoutes } from './routes/landregScheduling';
import { registerGeoportalTileRoutes } from './routes/geoportalTiles';
import { tileFrontDoor, tilesRouter, type FrontDoor } from './routes/tiles';
import { registerGeoportalRoutes } from './routes/geoportal';
import { registerNotificationRoutes } from './routes/notifications';
import { registerRegistryRoutes } from './routes/registratura';
import { registerCfportalRoutes } from './routes/cfportal';
import { registerRgiRoutes } from './routes/landregRgi';
import { registerCentralApiRoutes } from './routes/centralApi';
import { registerStorageRoutes, type StorageRouteOptions } from './routes/officeStorage';
import { registerVaultRoutes } from './routes/officeVault';
import { registerAddressBookRoutes } from './routes/officeAddressBook';
import { registerTagRoutes } from './routes/officeTags';
import { registerPdfToolRoutes } from './routes/pdfTools';
import { registerDwgRoutes } from './routes/dwg';
import { registerAiChatRoutes } from './routes/aiChat';
import { registerTokenRoutes } from './routes/tokens';
import { registerOgcRoutes } from './routes/ogc';
import { registerQgisProjectRoutes } from './routes/qgisProject';
import { personalTokenAuth } from './auth/personalToken';
import { config } from '../domain/config';
import type { Store } from '../domain/db/store';
import type { CfRouteOptions } from './routes/cfportal';
import type { OutsideTargets, Services } from '../domain/services';
import { AREA_NAMES, type AreaName } from '../domain/areas';
import { processServices } from '../temporal/services';
import type { PdfRouteOptions } from './routes/pdfTools';

export const JSON_BODY_LIMIT = 25 * 1024 * 1024; // CONTRACT.md section 5, bytes

/**
 * What the app is built from: the process's store (built once by the entry point, api/server.ts;
 * a test builds its own) and the settings of the areas a test aims elsewhere, each defaulting to
 * config. The areas' routers receive these as arguments: no module holds them.
 */
export interface AppDeps {
  store: Store;
  web?: RequestHandler[];
  /** The batch timings of the CF routes (default: config.cfportal); the portal and account slot are `outside`'s. */
  cf?: CfRouteOptions;
  /** The outside systems' addresses of the areas' services (each default: config). */
  outside?: OutsideTargets;
  /** Every area's service (domain/services.ts); default: built from the store and `outside`. */
  services?: Services;
  /** The PDF tools' upload settings (default: the upload helper's). */
  pdf?: PdfRouteOptions;
  /** The storage quota per company (default config.office.storageQuotaBytes). */
  storage?: StorageRouteOptions;
}

type RouterDeps = Omit<AppDeps, 'web'> & { services: Services };

/**
 * Each area's API routes, by the area's record (domain/areas.ts): the mapped type asks for every
 * area, so a new area's record fails to compile until it says here what it serves (null: no
 * route of its own: the outside calls and the object store are reached through other areas).
 * One router file per area (STYLE.md) or a few; each takes the area's service.
 */
const AREA_ROUTES: { [A in AreaName]: ((router: Router, deps: RouterDeps) => void) | null } = {
  ai: (router, { services }) => registerAiChatRoutes(router, services.ai),
  auth: (router, { services, store }) => {
    registerAuthApiRoutes(router);
    registerTokenRoutes(router, services.auth, store);
  },
  backup: (router, { services }) => registerAdminBackupRoutes(router, services.backup),
  central: (router, { services, store }) => registerCentralApiRoutes(router, services.central, store),
  cfportal: (router, { services, cf }) => registerCfportalRoutes(router, services.cfportal, cf),
  dwg: (router, { services }) => registerDwgRoutes(router, services.dwg),
  enrichment: (router, { services }) => registerLandregEnrichmentRoutes(router, services.enrichment),
  exports: (router, { services }) => registerExportRoutes(router, services.exports),
  geoportal: (router, { services }) => registerGeoportalRoutes(router, services.geoportal),
  landreg: (router, { services }) => {
    registerLandregRoutes(router, services.landreg);
    registerRgiRoutes(router, services.landreg);
  },
  notifications: (router, { services }) => registerNotificationRoutes(router, services.notifications),
  office: (router, { services, storage }) => {
    registerStorageRoutes(router, services.office, storage);
    registerVaultRoutes(router, services.office);
    registerAddressBookRoutes(router, services.office, services.tags);
  },
  // The OGC collections have their own prefix (ogcRouter below); the QGIS project is an API route.
  ogc: (router, { services }) => registerQgisProjectRoutes(router, services.ogc, services.exports),
  outside: null,
  pdf: (router, { services, pdf }) => registerPdfToolRoutes(router, services.pdf, pdf),
  registry: (router, { services }) => registerRegistryRoutes(router, services.registry),
  scheduling: (router, { services }) => registerSchedulingRoutes(router, services.scheduling),
  storage: null,
  tags: (router, { services }) => registerTagRoutes(router, services.tags),
  tiles: (router, { services, store }) => registerGeoportalTileRoutes(router, store, services.tiles),
};

/** The API: the system's routes (health, OpenAPI), then every area's. */
export function apiRouter(deps: RouterDeps): Router {
  const router = Router();
  registerSystemRoutes(router, deps.store);
  for (const area of AREA_NAMES) AREA_ROUTES[area]?.(router, deps);
  return router;
}

/** OGC API Features (docs/qgis.md): its own prefix, for desktop GIS clients. */
export function ogcRouter(ogc: Services['ogc']): Router {
  const router = Router();
  registerOgcRoutes(router, ogc);
  return router;
}

export function createApp(appDeps: AppDeps): Express {
  const deps = { ...appDeps, services: appDeps.services ?? processServices(appDeps.store, { outside: appDeps.outside }) };
  const app = express();
  app.disable('x-powered-by');
  // The client's address (req.ip, the key of the rate limits) as the deployment sees it: behind a
  // reverse proxy, from X-Forwarded-For of the proxies TRUST_PROXY names.
  app.set('trust proxy', config.app.trustProxy);
  // Plain key=value queries (repeated keys make arrays): no route takes qs's nested a[b]=c
  // forms, and qs's parser was a twentieth of the central proxy's CPU per request.
  app.set('query parser', 'simple');
  // Only /api requests are logged: a map view sends dozens of tile requests a second.
  app.use(requestLog(childLogger('http'), (req) => !req.path.startsWith('/api') || req.path === '/api/health'));
  app.use(httpMetrics());
  const cookies = cookieParser();
  const session = sessionMiddleware(deps.store.pool);
  app.use(cookies);
  app.use(session);
  // Before every router (API, tiles, sign-out, the UI's actions): a cookie-signed write from
  // another site is refused before anything reads its body.
  app.use(sameOriginWrites);
  // Personal access tokens sign in GET requests of desktop GIS clients on these two prefixes only.
  app.use(['/ogc', '/tiles'], personalTokenAuth(deps.services.auth));
  app.use('/auth', express.urlencoded({ extended: false, limit: '64kb' }), authRouter(deps.store, deps.services.auth, deps.services.notifications));
  // Prometheus' scrape: its own access rule (defineRoute 'metrics'), none of the API's limits.
  app.use(metricsRouter());
  app.use('/metrics', errorMapper);

  const limits = apiRateLimits(config.app.sharedLimits ? deps.store.pool : undefined);
  // Wrong tokens on /tiles are throttled as on /ogc and /api (one counter per address).
  app.use('/tiles', limits.bearerFailures);
  // The tile-rebuild webhook is a bearer route like the API's: the same limits, same counters.
  app.use('/tiles/rebuild-webhook', limits.user, limits.token);
  // Tiles: before /api and its catch-all; a session is required (defineRoute answers 401 JSON).
  // No per-user rate limit on tiles themselves: one map view asks for dozens of tiles at once.
  app.use(tilesRouter(deps.store));
  app.use('/tiles', (req, _res, next) => next(req.auth ? errors.notFound('Resursa de tile-uri nu există.') : errors.unauthorized()));
  app.use('/tiles', errorMapper);

  app.use('/api', ...limits.all, jsonBody({ limit: JSON_BODY_LIMIT }));
  app.use(apiRouter(deps));
  // Unknown /api route: without a session the caller learns nothing about what exists.
  app.use('/api', (req, _res, next) => next(req.auth ? errors.notFound('Ruta API nu există.') : errors.unauthorized()));
  app.use('/api', errorMapper);

  // OGC API Features: the same limits and counters as /api (a token counts as its user).
  app.use('/ogc', ...limits.all);
  app.use(ogcRouter(deps.services.ogc));
  app.use('/ogc', (req, _res, next) => next(req.auth ? errors.notFound('Resursa OGC nu există.') : errors.unauthorized()));
  app.use('/ogc', errorMapper);

  // Pages: the same per-user counter as /api (pageRateLimit); their loaders answer the refusal.
  if (deps.web) app.use(pageRateLimit(limits.user));
  for (const h of deps.web ?? []) app.use(h);
  app.use(errorMapper);
  return withFrontDoor(app, tileFrontDoor(deps.store, cookies));
}

/**
 * The tile front door ahead of Express itself: the app's `handle` (what a server built on it, a
 * listen() or a mount calls for each request) asks the door first, before Express touches the
 * request; what the door does not answer goes to Express's own handle unchanged.
 */
function withFrontDoor(app: Express, door: FrontDoor): Express {
  const host = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, done?: unknown) => void };
  const stack = host.handle.bind(app);
  host.handle = (req, res, done) => door(req, res, () => stack(req, res, done));
  return app;
}
