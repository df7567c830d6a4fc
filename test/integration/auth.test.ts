/**
 * Sign-in end to end: the development identity provider in-process on a free port, the real
 * Express app (createApp) on another, PostgreSQL for the sessions, and a tiny browser made of
 * fetch plus a cookie jar that walks the real redirects and the real login form.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { freeLoopbackPort } from '../../domain/net/loopback';
import { Browser as JarBrowser } from '../helpers/oidcBrowser';
import type { Store } from '../../domain/db/store';
import { listenApp } from '../helpers/appServer';

const ACCESS_TOKEN_TTL_SECONDS = 3;

let idpUrl: string;
let appUrl: string;
let sim: { issuer: string; close(): Promise<void> };
let server: http.Server;
let closePool: () => Promise<void>;
let store: Store | undefined;
let query: (sql: string, params?: unknown[]) => Promise<{ rows: any[] }>;
let jose: typeof import('jose');

/** The shared test browser, aimed at this suite's app. */
class Browser extends JarBrowser {
  constructor() {
    super(appUrl);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function simCounts(): Promise<Record<string, number>> {
  const r = await fetch(`${idpUrl}/__sim/requests`);
  return ((await r.json()) as { counts: Record<string, number> }).counts;
}

beforeAll(async () => {
  const [idpPort, appPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
  idpUrl = `http://127.0.0.1:${idpPort}`;
  appUrl = `http://127.0.0.1:${appPort}`;
  // config reads the environment once, at import: set it before importing anything of ours.
  process.env.OIDC_ISSUER = idpUrl;
  process.env.PUBLIC_URL = appUrl;
  process.env.PORT = String(appPort);
  process.env.NODE_ENV = 'test';
  // Tests must ignore the development bypass even when asked for it (spec 5.1).
  process.env.AUTH_DEV_BYPASS = '1';
  process.env.LOG_LEVEL ??= 'error';

  jose = await import('jose');
  const { startOidcProvider } = await import('../../simulators/oidc/provider');
  const { createApp } = await import('../../api/app');
  const { createStore } = await import('../../domain/db/store');
  store = createStore();
  const { pageGuard } = await import('../../api/auth');
  const poolMod = await import('../../domain/db/pool');
  closePool = poolMod.closePool;
  query = (sql, params) => poolMod.getPool().query(sql, params as any[]);
  await query(`CREATE TABLE IF NOT EXISTS app_sessions (
    id text PRIMARY KEY, user_id text NOT NULL, data jsonb NOT NULL,
    created_at timestamptz DEFAULT now(), last_seen_at timestamptz DEFAULT now(), expires_at timestamptz NOT NULL)`);

  sim = await startOidcProvider({ port: idpPort, issuer: idpUrl, host: '127.0.0.1', accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS });
  // The UI stand-in: the page guard, then a page that names the path it served.
  const app = createApp({ store, web: [pageGuard, (req, res) => void res.type('text').send(`pagina ${req.originalUrl}`)] });
  ({ server } = await listenApp(app, appPort));
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server?.close(() => resolve());
  });
  await sim?.close();
  await store?.close();
  await closePool?.();
});

describe('sign-in through the development identity provider', () => {
  it('signs dan in, returns to the asked page and sets a server-side session cookie', async () => {
    const b = new Browser();
    const end = await b.signIn('dan@birou.ro', 'parola-dan', '/harta?uat=54975');
    expect(end.url).toBe(`${appUrl}/harta?uat=54975`);
    expect(await end.res.text()).toBe('pagina /harta?uat=54975');

    const callbackHop = b.hops.find((h) => h.url.startsWith(`${appUrl}/auth/callback`))!;
    const line = callbackHop.setCookie.find((c) => c.startsWith('cgp_session='))!;
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).toMatch(/;\s*SameSite=Lax/i);
    expect(line).toMatch(/;\s*Path=\/(;|$)/);
    expect(line).not.toMatch(/;\s*Secure/i); // the public URL is http here
    // The cookie is an opaque handle, not a token.
    const handle = b.cookie(appUrl, 'cgp_session')!;
    expect(handle).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const res = await b.session();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      user: { id: 'usr-dan', email: 'dan@birou.ro', name: 'Dan Țurcanu', company: 'U' },
      useCentralApi: false,
      basicPanel: false,
      isAdmin: false,
      enrichmentScope: 'full',
    });
  });

  it('keeps the session for 30 days at most and the tokens only on the server', async () => {
    const b = new Browser();
    await b.signIn('mihai', 'parola-mihai');
    const r = await query(
      `SELECT user_id, data, extract(epoch FROM expires_at - created_at)::int AS lifetime FROM app_sessions WHERE id = $1`,
      [await b.sessionId()],
    );
    expect(r.rows[0].user_id).toBe('usr-mihai');
    expect(r.rows[0].lifetime).toBe(30 * 24 * 3600);
    const data = r.rows[0].data;
    // The refresh token is sealed at rest (issue 25): the row does not hold it in clear, and no
    // ID token at all (sign-out names the client, not the token)…
    expect(data.tokens).not.toHaveProperty('refreshToken');
    expect(data.tokens).not.toHaveProperty('idToken');
    expect(data.tokens.sealed).toEqual(expect.any(String));
    // …while the session store opens it (the refresh uses it).
    const { loadSession } = await import('../../api/auth/sessionStore');
    const opened = (await loadSession(store!.pool, await b.sessionId()))!.data.tokens;
    expect(opened.refreshToken).toEqual(expect.any(String));
    expect(opened).not.toHaveProperty('idToken');
    const rowText = (await query(`SELECT data::text AS t FROM app_sessions WHERE id = $1`, [await b.sessionId()])).rows[0].t as string;
    expect(rowText).not.toContain(opened.refreshToken);
    // The access token is a JWT of the IdP for the central API, with the claims it authorises by.
    const jwks = jose.createRemoteJWKSet(new URL(`${idpUrl}/jwks`));
    const { payload } = await jose.jwtVerify(data.tokens.accessToken, jwks, { issuer: idpUrl, audience: 'urn:geoportal:central-api' });
    expect(payload).toMatchObject({ sub: 'usr-mihai', email: 'mihai@birou.ro', company: 'G', groups: [], enrichment_scope: 'full' });
  });

  it('gives radu an access token without the enrichment_scope claim', async () => {
    const b = new Browser();
    await b.signIn('radu@birou.ro', 'parola-radu');
    const body = await (await b.session()).json();
    expect(body).toMatchObject({ user: { name: 'Radu Sîrbu', company: 'B' }, useCentralApi: true, enrichmentScope: null });
    const r = await query(`SELECT data FROM app_sessions WHERE id = $1 AND user_id = 'usr-radu'`, [await b.sessionId()]);
    expect(jose.decodeJwt(r.rows[0].data.tokens.accessToken)).not.toHaveProperty('enrichment_scope');
  });

  it.each([
    ['ioana is a central API pilot with the basic scope', 'ioana@birou.ro', 'parola-ioana', { useCentralApi: true, enrichmentScope: 'basic', basicPanel: false, isAdmin: false, user: { company: 'S' } }],
    ['elena gets the basic panel', 'elena@birou.ro', 'parola-elena', { useCentralApi: false, basicPanel: true, isAdmin: false, user: { company: 'B' } }],
    ['ana is an admin through the admin group', 'ana@birou.ro', 'parola-ana', { useCentralApi: false, basicPanel: false, isAdmin: true, user: { name: 'Ana Mărgărit', company: 'B' } }],
  ])('%s', async (_name, username, password, expected) => {
    const b = new Browser();
    await b.signIn(username, password);
    const res = await b.session();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject(expected);
  });

  it('shows the login form again with an error after a wrong password', async () => {
    const b = new Browser();
    const end = await b.signIn('dan@birou.ro', 'parola-gresita');
    const html = await end.res.text();
    expect(end.url.startsWith(idpUrl)).toBe(true);
    expect(html).toContain('Utilizator sau parolă greșită.');
    expect(html).toContain('name="password"');
    expect(b.cookie(appUrl, 'cgp_session')).toBeUndefined();
  });

  it('never redirects outside the service after sign-in', async () => {
    const b = new Browser();
    const end = await b.signIn('dan@birou.ro', 'parola-dan', '//evil.example/furt');
    expect(end.url).toBe(`${appUrl}/`);
  });

  it.each(['/.//evil.example/x', '/%2e//evil.example/x', '/./\\evil.example/x', 'https://evil.example/x', 'javascript:alert(1)', '/%2F%2Fevil.example/x'])(
    'returns home after signing in with callbackUrl=%s (the callback answers Location: /)',
    async (callbackUrl) => {
      const b = new Browser();
      const end = await b.signIn('dan@birou.ro', 'parola-dan', callbackUrl);
      const callbackHop = b.hops.find((h) => h.url.startsWith(`${appUrl}/auth/callback`))!;
      expect(callbackHop.status).toBe(302);
      expect(callbackHop.location).toBe('/');
      expect(end.url).toBe(`${appUrl}/`);
    },
  );

  it('answers 401 JSON on the API without a session, even with AUTH_DEV_BYPASS=1 in tests', async () => {
    const res = await fetch(`${appUrl}/api/anything`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
    expect((await fetch(`${appUrl}/api/auth/session`)).status).toBe(401);
  });

  it('sends a browser without a session from a page to sign-in, returning to that page', async () => {
    const res = await fetch(`${appUrl}/registratura?an=2024`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/auth/login?callbackUrl=${encodeURIComponent('/registratura?an=2024')}`);
    // A Remix data request gets Remix's redirect protocol (fetch cannot follow to the IdP).
    const data = await fetch(`${appUrl}/harta?z=3&_data=routes%2Fharta`, { redirect: 'manual' });
    expect(data.status).toBe(204);
    expect(data.headers.get('x-remix-redirect')).toBe(`/auth/login?callbackUrl=${encodeURIComponent('/harta?z=3')}`);
    // Static assets pass through to the UI untouched.
    expect((await fetch(`${appUrl}/assets/app.js`, { redirect: 'manual' })).status).toBe(200);
  });

  it('logs out: the session is deleted, the cookie cleared, the IdP session ended', async () => {
    const b = new Browser();
    await b.signIn('dan@birou.ro', 'parola-dan');
    const handle = b.cookie(appUrl, 'cgp_session')!;
    expect((await b.session()).status).toBe(200);

    const res = await b.request(`${appUrl}/auth/logout`, { method: 'POST' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.href.startsWith(`${idpUrl}/session/end`)).toBe(true);
    expect(location.searchParams.get('post_logout_redirect_uri')).toBe(`${appUrl}/`);
    // The provider learns which client signs out from its id; the ID token never reaches the browser.
    expect(location.searchParams.get('client_id')).toBeTruthy();
    expect(location.searchParams.has('id_token_hint')).toBe(false);
    expect(b.cookie(appUrl, 'cgp_session')).toBeUndefined();
    // The provider ends its session (its page submits its own form, as a browser's script does)
    // and sends the user back to the app, which asks for a sign-in: the provider's form, the
    // password asked again.
    const confirm = await b.browse(location);
    const html = await confirm.res.text();
    const form = /<form[^>]*id="op\.logoutForm"[^>]*>/.exec(html)?.[0] ?? '';
    const action = /action="([^"]+)"/.exec(form)![1];
    const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const ended = await b.browse(new URL(action.replace(/&amp;/g, '&'), confirm.url), { form: fields });
    expect(ended.res.status).toBe(200);
    expect(await ended.res.text()).toContain('name="password"');

    const replay = await fetch(`${appUrl}/api/auth/session`, { headers: { cookie: `cgp_session=${handle}` } });
    expect(replay.status).toBe(401);
  });
});

describe('access token refresh (spec 5.4)', () => {
  it('shares one token exchange among concurrent requests, again after each rotation', async () => {
    const b = new Browser();
    await b.signIn('ioana@birou.ro', 'parola-ioana');
    for (const wave of [1, 2]) {
      await fetch(`${idpUrl}/__sim/requests`, { method: 'DELETE' });
      await sleep(ACCESS_TOKEN_TTL_SECONDS * 1000 + 200);
      const answers = await Promise.all(Array.from({ length: 8 }, () => b.session()));
      const bodies = await Promise.all(answers.map((r) => r.json() as Promise<Record<string, unknown>>));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      for (const body of bodies) expect(body.error).toBeUndefined();
      const counts = await simCounts();
      expect({ wave, refreshes: counts['token:refresh_token'] ?? 0, failures: counts['token:refresh_token:error'] ?? 0 }).toEqual({
        wave,
        refreshes: 1,
        failures: 0,
      });
    }
    // The rotated refresh token went back into the row sealed, as at sign-in.
    const { loadSession } = await import('../../api/auth/sessionStore');
    const id = await b.sessionId();
    const rotated = (await loadSession(store!.pool, id))!.data.tokens.refreshToken!;
    const rowText = (await query(`SELECT data::text AS t FROM app_sessions WHERE id = $1`, [id])).rows[0].t as string;
    expect(rowText).not.toContain(rotated);
    expect(JSON.parse(rowText).tokens).not.toHaveProperty('refreshToken');
  });

  it("a refresh bringing narrowed claims narrows the user's QGIS tokens too, without a new sign-in", async () => {
    const { findUserBySub } = await import('../../simulators/oidc/users');
    const elena = findUserBySub('usr-elena')!;
    const b = new Browser();
    await b.signIn('elena@birou.ro', 'parola-elena');
    const made = await b.request('/api/tokens', { method: 'POST', json: { name: 'QGIS birou' }, headers: { origin: appUrl } });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const scopeOfToken = async () => (await query(`SELECT identity->>'enrichmentScope' AS s FROM personal_access_tokens WHERE id = $1`, [id])).rows[0].s;
    expect(await scopeOfToken()).toBe('full');
    // The provider's administrator narrows her scope; she keeps working in the open tab.
    elena.enrichmentScope = 'basic';
    try {
      await sleep(ACCESS_TOKEN_TTL_SECONDS * 1000 + 200);
      expect(await (await b.session()).json()).toMatchObject({ enrichmentScope: 'basic' });
      expect(await scopeOfToken()).toBe('basic');
    } finally {
      elena.enrichmentScope = 'full';
      await query(`DELETE FROM personal_access_tokens WHERE id = $1`, [id]);
    }
  });

  it('a row whose tokens are in clear (written before sealing) or sealed for another row is signed out', async () => {
    const { loadSession } = await import('../../api/auth/sessionStore');
    const b = new Browser();
    await b.signIn('elena@birou.ro', 'parola-elena');
    const id = await b.sessionId();
    const opened = (await loadSession(store!.pool, id))!.data;
    const row = (await query(`SELECT data FROM app_sessions WHERE id = $1`, [id])).rows[0].data;
    // Another session's row with this one's sealed tokens copied in: the row id is bound in.
    const other = new Browser();
    await other.signIn('elena@birou.ro', 'parola-elena');
    const otherId = await other.sessionId();
    await query(`UPDATE app_sessions SET data = $2 WHERE id = $1`, [otherId, row]);
    expect(await loadSession(store!.pool, otherId)).toBeNull();
    // Tokens in clear, as rows were kept before: not trusted.
    await query(`UPDATE app_sessions SET data = jsonb_set(data, '{tokens,refreshToken}', to_jsonb($2::text)) WHERE id = $1`, [id, opened.tokens.refreshToken]);
    expect(await loadSession(store!.pool, id)).toBeNull();
  });

  it('marks the session with RefreshAccessTokenError when the refresh fails, and pages go to sign-in', async () => {
    const b = new Browser();
    await b.signIn('mihai@birou.ro', 'parola-mihai');
    // The IdP forgets every grant: the refresh token held by the session is now worthless.
    expect((await fetch(`${idpUrl}/__sim/reset`, { method: 'POST' })).status).toBe(200);
    await sleep(ACCESS_TOKEN_TTL_SECONDS * 1000 + 200);

    const res = await b.session();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { email: 'mihai@birou.ro' }, error: 'RefreshAccessTokenError' });
    expect((await simCounts())['token:refresh_token:error']).toBe(1);

    const page = await b.request(`${appUrl}/harta?z=12`);
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(`/auth/login?callbackUrl=${encodeURIComponent('/harta?z=12')}`);

    // Signing in again replaces the broken session and returns to the page.
    const again = await b.signIn('mihai@birou.ro', 'parola-mihai', '/harta?z=12');
    expect(again.url).toBe(`${appUrl}/harta?z=12`);
    expect(await (await b.session()).json()).not.toHaveProperty('error');
  });
});
