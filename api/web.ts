/**
 * The Remix UI as Express handlers, mounted by createApp({ web }) after /api and /auth:
 * fingerprinted assets (cached for a year, immutable), the other files of build/client, then the
 * Remix request handler with the built server bundle. Loaders receive the request's session as
 * `context.auth`, the page door's refusal past the per-user limit as `context.refused`, the
 * process's store as `context.store` and every area's service as `context.services` (typed in
 * web/app/context.ts).
 *
 * The bundle comes from `npm run build:web` (`remix vite:build`, vite.config.ts). It imports the
 * project's server modules (api/, domain/, ...) from source, so the process must run under tsx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import { createRequestHandler } from '@remix-run/express';
import type { ServerBuild } from '@remix-run/node';
import { config, projectRoot } from '../domain/config';
import type { Store } from '../domain/db/store';
import type { Services } from '../domain/services';
import { pageRefusalOf } from './http/rateLimit';
import { isClosed } from './http/download';

export const WEB_BUILD_DIR = path.join(projectRoot, 'build');
export const WEB_SERVER_BUILD = path.join(WEB_BUILD_DIR, 'server', 'index.js');
export const WEB_CLIENT_DIR = path.join(WEB_BUILD_DIR, 'client');

export class WebBuildMissingError extends Error {
  constructor(missing: string) {
    super(
      `The web UI is not built: ${path.relative(projectRoot, missing)} does not exist. ` +
        'Run the web build first: `npm run build:web` (remix vite:build).',
    );
    this.name = 'WebBuildMissingError';
  }
}

export async function createWebHandlers(store: Store, services: Services): Promise<RequestHandler[]> {
  for (const required of [WEB_SERVER_BUILD, path.join(WEB_CLIENT_DIR, 'assets')]) {
    if (!fs.existsSync(required)) throw new WebBuildMissingError(required);
  }
  const build = (await import(pathToFileURL(WEB_SERVER_BUILD).href)) as ServerBuild;

  const statics = Router();
  // Vite fingerprints everything under assets/: a changed file gets a new name.
  statics.use(
    '/assets',
    express.static(path.join(WEB_CLIENT_DIR, 'assets'), { immutable: true, maxAge: '1y', index: false }),
  );
  statics.use(express.static(WEB_CLIENT_DIR, { maxAge: '1h', index: false }));

  const remix = createRequestHandler({
    build,
    mode: config.nodeEnv === 'production' ? 'production' : 'development',
    getLoadContext: (req, res) => ({ auth: req.auth, store, services, refused: pageRefusalOf(res) }),
  });

  // Remix aborts a loader's `request.signal` on the response's `close`, listened for when the
  // page reaches it: a browser that abandoned the load while its session was read is gone before
  // then, and its loader (portal calls included) would run to the end for nobody.
  const pages: RequestHandler = (req, res, next) => {
    if (isClosed(res)) return;
    void remix(req, res, next);
  };
  return [statics, pages];
}
