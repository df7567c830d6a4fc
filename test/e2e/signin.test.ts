/**
 * End to end (issue 3, deliverable 9): a browser opens the service, is sent to the identity
 * provider's login form, signs in as Dan, sees the Romanian shell with its four health
 * indicators green, and signs out again. Runs against the whole stack that scripts/test.sh starts
 * (or E2E_BASE_URL). Debian Chromium through playwright-core; no browser is ever downloaded.
 * Leaves a screenshot of the shell in test-results/e2e-shell.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { E2E_BASE_URL, E2E_ORIGIN, launchChromium, signInThroughIdp } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';

const BASE_URL = E2E_BASE_URL;
const BASE_ORIGIN = E2E_ORIGIN;
const SCREENSHOT = path.join(projectRoot, 'test-results', 'e2e-shell.png');
const HEALTH_KEYS = ['database', 'temporal', 'storage', 'mail'] as const;

const USER = { email: 'dan@birou.ro', password: 'parola-dan', company: 'U' };

const launch = (): Promise<Browser> => launchChromium(['--disable-gpu']);

/** The health indicators' states and tooltips, for a readable failure message. */
async function healthStates(page: Page): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const key of HEALTH_KEYS) {
    const el = page.getByTestId(`health-${key}`);
    const state = await el.getAttribute('data-state').catch(() => 'missing');
    const tip = await el.locator('[role=tooltip]').textContent().catch(() => '');
    out[key] = `${state} (${tip ?? ''})`;
  }
  return out;
}

const signIn = (page: Page) => signInThroughIdp(page, USER);

describe('web shell, end to end', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
  });

  test('Dan signs in through the identity provider, sees the Romanian shell with green health lines and signs out', async () => {
    const context = await browser.newContext({ locale: 'ro-RO', viewport: { width: 1366, height: 860 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    // 1. The shell sends an anonymous visitor to the identity provider's login form.
    await page.goto(`${BASE_URL}/`);
    await page.locator('input[name="username"]').waitFor({ state: 'visible', timeout: 20_000 });
    await expect(page.locator('input[name="password"]').count()).resolves.toBe(1);
    expect(new URL(page.url()).origin).not.toBe(BASE_ORIGIN);

    // 2. Sign in; the provider returns to the shell.
    await signIn(page);
    const greeting = page.getByTestId('greeting');
    await greeting.waitFor({ state: 'visible', timeout: 20_000 });
    expect(new URL(page.url()).pathname).toBe('/');

    // 3. The Romanian greeting names the signed-in user, with e-mail and company.
    const session = (await page.evaluate(async () => {
      const res = await fetch('/api/auth/session', { headers: { accept: 'application/json' } });
      return { status: res.status, body: (await res.json()) as { user?: { name?: string; email?: string } } };
    })) as { status: number; body: { user?: { name?: string; email?: string } } };
    expect(session.status).toBe(200);
    expect(session.body.user?.email).toBe(USER.email);
    const greetingText = (await greeting.textContent()) ?? '';
    expect(greetingText).toMatch(/^Bun venit, .+!$/);
    expect(greetingText).toContain('Dan');
    expect(greetingText).toContain(session.body.user?.name ?? '\u0000');
    await expect(page.getByTestId('greeting-email').textContent()).resolves.toBe(USER.email);
    await expect(page.getByTestId('greeting-company').textContent()).resolves.toContain(`(${USER.company})`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ro');
    await expect(page.getByRole('link', { name: 'Acasă' }).count()).resolves.toBeGreaterThan(0);

    // 4. All four health indicators turn green (first from the loader, then every 15 s).
    try {
      await page.waitForFunction(
        (keys) => keys.every((k) => document.querySelector(`[data-testid="health-${k}"]`)?.getAttribute('data-state') === 'ok'),
        [...HEALTH_KEYS],
        { timeout: 20_000, polling: 250 },
      );
    } catch (err) {
      await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-health-failed.png'), fullPage: true }).catch(() => {});
      throw new Error(`health indicators did not all turn green: ${JSON.stringify(await healthStates(page))}`, { cause: err });
    }

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(5_000);

    // 5. Sign out: back at the login form, and the session is gone.
    await Promise.all([page.waitForLoadState('load'), page.getByTestId('logout').click()]);
    await page.locator('input[name="username"]').waitFor({ state: 'visible', timeout: 20_000 });
    await expect(page.locator('input[name="password"]').count()).resolves.toBe(1);
    const after = await context.request.get(`${BASE_URL}/api/auth/session`, { maxRedirects: 0 });
    expect(after.status()).toBe(401);

    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
