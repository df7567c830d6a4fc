/**
 * Sends browsers without a usable session to sign-in (spec 5.1), returning afterwards to the page
 * they asked for. Mounted before the Remix UI. API routes answer 401 JSON instead (defineRoute),
 * so they, sign-in itself, tiles and static files pass through.
 */
import type { Request, RequestHandler } from 'express';

export const UNGUARDED_PREFIXES = [
  '/auth/',
  '/api/',
  '/tiles/',
  '/assets/',
  '/build/',
  '/favicon.ico',
  '/robots.txt',
  // Vite's development server (module graph, HMR client) when the UI runs in dev mode.
  '/@',
  '/node_modules/',
];

export function isGuardedPath(path: string): boolean {
  if (path === '/auth' || path === '/api' || path === '/tiles') return false;
  return !UNGUARDED_PREFIXES.some((p) => path.startsWith(p));
}

/** The current page as a callbackUrl: path and query, minus Remix's `_data` marker. */
export function currentPage(req: Request): string {
  const u = new URL(req.originalUrl, 'http://page.invalid');
  u.searchParams.delete('_data');
  return `${u.pathname}${u.search}`;
}

export function loginLocation(callbackUrl: string): string {
  return `/auth/login?callbackUrl=${encodeURIComponent(callbackUrl)}`;
}

export const pageGuard: RequestHandler = (req, res, next) => {
  if (!isGuardedPath(req.path)) return next();
  // A failed token refresh (spec 5.4) also means: sign in again, back to this page.
  if (req.auth && !req.auth.error) return next();
  const location = loginLocation(currentPage(req));
  res.set('Cache-Control', 'no-store');
  if (req.query._data !== undefined) {
    // A Remix client-side data fetch cannot follow a redirect to another origin; Remix's own
    // redirect protocol makes the browser navigate instead.
    res.status(204).set({ 'X-Remix-Redirect': location, 'X-Remix-Status': '302' }).end();
    return;
  }
  // 303 after a form POST so the browser switches to GET.
  res.redirect(req.method === 'GET' || req.method === 'HEAD' ? 302 : 303, location);
};
