/**
 * Jest setup (jest.config.js `setupFiles`): the test process's `fetch` behaves like a browser on
 * our own pages in one respect. A browser sends `Origin` with every POST, PUT, PATCH and DELETE;
 * Node's fetch sends none, and the API refuses a cookie-signed write without a same-origin one
 * (api/auth/sameOrigin.ts). So a non-GET request that carries our session cookie (`cgp_session`)
 * and names no `Origin` or `Sec-Fetch-Site` itself gets `Origin: <the URL's own origin>`, as the
 * page's own script would send. Nothing else is touched: requests without our cookie (product
 * code calling simulators, bearer-token calls) go out as they are, and a test that checks the
 * refusal sets its own `Origin` (another site's) or sends the request with node:http.
 */
const SESSION_COOKIE = 'cgp_session=';
const nativeFetch = globalThis.fetch;

function sameOriginInit(input: string | URL | Request, init: RequestInit | undefined): RequestInit | undefined {
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return init;
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.get('cookie')?.includes(SESSION_COOKIE) || headers.has('origin') || headers.has('sec-fetch-site')) return init;
  const url = input instanceof Request ? input.url : String(input);
  headers.set('origin', new URL(url).origin);
  return { ...init, headers };
}

globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => nativeFetch(input, sameOriginInit(input, init))) as typeof fetch;
