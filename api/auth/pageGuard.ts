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
  if (isSingleFetchRequest(req)) {
    // `/_root.data` is "/", `/x/y.data` is "/x/y"; `_routes` only tells Remix which loaders to run.
    u.pathname = u.pathname === '/_root.data' ? '/' : u.pathname.replace(/\.data$/, '');
    u.searchParams.delete('_routes');
  }
  return `${u.pathname}${u.search}`;
}

/** A Remix single-fetch data request (future.v3_singleFetch): `GET /<page>.data`. */
export function isSingleFetchRequest(req: Request): boolean {
  return req.path.endsWith('.data');
}

/**
 * Remix 2's single-fetch redirect (the turbo-stream payload Remix itself sends for
 * `redirectDocument`): `fetch()` cannot follow a 302 to the identity provider's origin, so the
 * client router is told to leave with a full document navigation instead.
 */
function singleFetchRedirectBody(location: string): string {
  const payload = [
    ['SingleFetchRedirect', 1],
    { _2: 3, _4: 5, _6: 7, _8: 9, _10: 7 },
    'redirect',
    location,
    'status',
    302,
    'revalidate',
    false,
    'reload',
    true,
    'replace',
  ];
  return `${JSON.stringify(payload)}\n`;
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
  if (isSingleFetchRequest(req)) {
    res
      .status(202)
      .set({ 'Content-Type': 'text/x-script; charset=utf-8', 'X-Remix-Response': 'yes' })
      .send(singleFetchRedirectBody(location));
    return;
  }
  if (req.query._data !== undefined) {
    // A Remix client-side data fetch cannot follow a redirect to another origin; Remix's own
    // redirect protocol makes the browser navigate instead.
    res.status(204).set({ 'X-Remix-Redirect': location, 'X-Remix-Status': '302' }).end();
    return;
  }
  if (req.method === 'GET' && req.get('sec-fetch-mode') === 'navigate') {
    // The browser alone knows the page's fragment (a shared map view, `/geoportal#14/45.7/26.3`),
    // and the identity provider's form post drops it: a one-line page adds it to the way back.
    res.status(200).type('html').send(hashKeepingRedirect(location));
    return;
  }
  // 303 after a form POST so the browser switches to GET.
  res.redirect(req.method === 'GET' || req.method === 'HEAD' ? 302 : 303, location);
};

/** Navigates to sign-in with the fragment added to the callback (without script: plain sign-in). */
export function hashKeepingRedirect(location: string): string {
  const js = JSON.stringify(location).replace(/</g, '\\u003c');
  const attr = location.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return (
    `<!doctype html><html lang="ro"><head><meta charset="utf-8"><title>Autentificare</title>` +
    `<script>location.replace(${js} + encodeURIComponent(location.hash))</script>` +
    `<noscript><meta http-equiv="refresh" content="0;url=${attr}"></noscript></head>` +
    `<body><p><a href="${attr}">Autentificare</a></p></body></html>`
  );
}
