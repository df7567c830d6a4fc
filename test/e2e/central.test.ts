/**
 * End to end on the central API path (issue 16): Mihai, a pilot user with the full scope, signs
 * in through the identity provider's form in Chromium, searches the geoportal (the central
 * search), opens a parcel (the central detail), enriches it and orders its CF extract, all
 * through /api/gis and /api/cf. Then his refresh token is revoked at the identity provider and
 * the central API refuses his access token: the refresh fails (RefreshAccessTokenError) and the
 * browser goes to sign-in with the page as callbackUrl, and the identity provider (single sign-on)
 * brings him back to it with a new session.
 * Runs against the whole stack (its central API simulator and identity provider).
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { SESSION_COOKIE } from '../../api/auth/cookies';
import { loadSession, sessionIdFor } from '../../api/auth/sessionStore';
import { E2E_BASE_URL, E2E_ORIGIN, launchChromium, signInThroughIdp } from '../helpers/e2e';
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';

const USER = { email: 'mihai@birou.ro', password: 'parola-mihai' };

/** Revokes the refresh token of this browser's own session (other suites sign the same user in). */
async function revokeRefreshTokenOf(context: BrowserContext): Promise<void> {
  const cookie = (await context.cookies(E2E_ORIGIN)).find((c) => c.name === SESSION_COOKIE);
  expect(cookie).toBeDefined();
  // The row keeps the refresh token sealed: the session store opens it, as the middleware does.
  const row = await loadSession(getPool(), sessionIdFor(cookie!.value));
  expect(row).not.toBeNull();
  const token = row!.data.tokens.refreshToken!;
  const discovery = (await (await fetch(`${config.oidc.issuer}/.well-known/openid-configuration`)).json()) as { revocation_endpoint: string };
  // What a user's "sign out everywhere" at the identity provider does to this session's grant.
  const res = await fetch(discovery.revocation_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: 'refresh_token', client_id: config.oidc.clientId, client_secret: config.oidc.clientSecret }),
  });
  expect(res.status).toBe(200);
}

describe('geoportal on the central API path, end to end', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  });

  afterAll(async () => {
    await browser?.close();
    await closePool();
  });

  test('a pilot user searches, opens, enriches and orders through the central API; a failed refresh sends him to sign in and back', async () => {
    const context = await browser.newContext({ locale: 'ro-RO', viewport: { width: 1366, height: 860 } });
    const page = await context.newPage();
    const apiCalls: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin === E2E_ORIGIN && (u.pathname.startsWith('/api/') || u.pathname.startsWith('/auth/'))) apiCalls.push(`${r.method()} ${u.pathname}${u.search}`);
    });

    await page.goto(`${E2E_BASE_URL}/geoportal`);
    await signInThroughIdp(page, USER);
    expect(new URL(page.url()).pathname).toBe('/geoportal');
    await page.waitForSelector('[data-testid="geoportal-map"][data-ready="1"]', { timeout: 30_000 });

    // The central search: parcels numbered 1000 in several UATs.
    await page.getByTestId('geoportal-search').fill('1000');
    const hits = page.getByTestId('geoportal-search-results').getByRole('button', { name: /Nr\. cadastral 1000/ });
    await hits.first().waitFor({ timeout: 20_000 });
    await hits.first().click();
    await page.getByTestId('feature-panel-title').filter({ hasText: '1000' }).waitFor({ timeout: 20_000 });
    expect(apiCalls.some((c) => c.startsWith('GET /api/gis/search?'))).toBe(true);
    expect(apiCalls.some((c) => /^GET \/api\/gis\/parcela\/[0-9a-f-]{36}$/.test(c))).toBe(true);

    // Enrichment through the central API: owners appear.
    await page.getByTestId('central-enrich-button').click();
    await page.getByText('Proprietari', { exact: true }).waitFor({ timeout: 20_000 });
    expect(apiCalls).toContain('POST /api/gis/parcel/enrich');
    expect(apiCalls).not.toContain('POST /api/geoportal/enrich');

    // CF extract: none yet (or already valid from an earlier run); an order is accepted either way.
    await page.getByTestId('cf-status-button').click();
    const status = page.getByTestId('cf-status');
    await status.waitFor({ timeout: 20_000 });
    if (await page.getByTestId('cf-order-button').count()) {
      await page.getByTestId('cf-order-button').click();
      await status.filter({ hasText: /procesare|valabil/ }).waitFor({ timeout: 20_000 });
    }
    expect(await status.textContent()).toMatch(/Extras CF (în curs de procesare|valabil până la)/);

    // The refresh token dies at the IdP; the central API refuses the current access token.
    // Back to the page and its view: the map keeps its view in the fragment (`#zoom/lat/lon`).
    const toSignIn = page.waitForRequest((r) => r.url().startsWith(`${E2E_ORIGIN}/auth/login?callbackUrl=${encodeURIComponent('/geoportal#')}`), { timeout: 20_000 });
    const callback = page.waitForRequest((r) => r.url().startsWith(`${E2E_ORIGIN}/auth/callback?`), { timeout: 30_000 });
    await revokeRefreshTokenOf(context);
    const reject = await fetch(`${config.central.baseUrl}/__sim/reject-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1, sub: 'usr-mihai' }),
    });
    expect(reject.status).toBe(200);
    await page.getByTestId('geoportal-search').fill('1001');
    await toSignIn;
    // The identity provider still knows this browser (single sign-on): it signs him in again
    // without the form and the service brings him back to the page he was on.
    await callback;
    await page.waitForURL((u) => u.origin === E2E_ORIGIN && u.pathname === '/geoportal', { timeout: 30_000 });
    await page.waitForSelector('[data-testid="geoportal-map"][data-ready="1"]', { timeout: 30_000 });
    const session = await page.evaluate(async () => (await fetch('/api/auth/session')).json());
    expect(session).toMatchObject({ user: { email: USER.email }, useCentralApi: true });
    expect(session).not.toHaveProperty('error');
    await context.close();
  });
});
