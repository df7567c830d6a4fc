/**
 * Vite + Remix build of the web UI (web/app). `npx remix vite:build` writes the browser assets to
 * build/client and the server bundle to build/server/index.js, which api/web.ts mounts in Express.
 *
 * The server bundle keeps the project's own server code (api/, domain/, temporal/, ...) EXTERNAL:
 * loaders import it from source at run time, so the Express process and the Remix loaders share
 * one instance of every module (one pg pool, one Temporal client, one cache) instead of a second
 * bundled copy. The server therefore runs under tsx, like the rest of the stack.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { vitePlugin as remix } from '@remix-run/dev';

const root = path.dirname(fileURLToPath(import.meta.url));
const webDir = path.join(root, 'web') + path.sep;
const nodeModules = path.join(root, 'node_modules') + path.sep;
const serverBuildDir = path.join(root, 'build', 'server');

/** A resolved module of ours that lives outside web/ (api, domain, temporal, ...). */
function isProjectServerModule(id: string): boolean {
  return id.startsWith(root + path.sep) && !id.startsWith(webDir) && !id.startsWith(nodeModules);
}

export default defineConfig(({ isSsrBuild }) => ({
  resolve: { alias: { '~': path.join(root, 'web/app') } },
  // Files served as they are at the site root (build/client): /favicon.ico, asked by browsers and tools that ignore the page's icon link.
  publicDir: path.join(root, 'web/public'),
  server: { port: 3001 },
  build: {
    target: 'es2022',
    rollupOptions: isSsrBuild
      ? {
          external: (id: string, _importer: string | undefined, isResolved: boolean) =>
            isResolved && isProjectServerModule(id),
          // build/server/index.js imports them by a path relative to itself (two levels up, then api/…, domain/… .ts)
          output: {
            paths: (id: string) => (isProjectServerModule(id) ? path.relative(serverBuildDir, id).split(path.sep).join('/') : id),
          },
        }
      : {},
  },
  plugins: [
    remix({
      appDirectory: 'web/app',
      buildDirectory: 'build',
      serverBuildFile: 'index.js',
      ignoredRouteFiles: ['**/*.css', '**/*.test.*', '**/__tests__/**'],
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
        // v3_routeConfig needs @remix-run/route-config + fs-routes (not installed); file routes stay.
      },
    }),
  ],
}));
