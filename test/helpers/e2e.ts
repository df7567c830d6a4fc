/**
 * End-to-end helpers: Debian's Chromium (never a downloaded browser) and signing in through the
 * identity provider's real form, as a person does.
 */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { config } from '../../domain/config';

export const E2E_BASE_URL = (process.env.E2E_BASE_URL ?? config.app.publicUrl).replace(/\/+$/, '');
export const E2E_ORIGIN = new URL(E2E_BASE_URL).origin;

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-background-networking', ...extraArgs],
  });
}

/** Submit the login form; pass any further identity-provider step (e.g. a consent page). */
export async function signInThroughIdp(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.locator('input[name="username"]').waitFor({ state: 'visible', timeout: 20_000 });
  await page.locator('input[name="username"]').fill(user.email);
  await page.locator('input[name="password"]').fill(user.password);
  await Promise.all([page.waitForLoadState('load'), page.locator('input[name="password"]').press('Enter')]);
  for (let step = 0; step < 3 && new URL(page.url()).origin !== E2E_ORIGIN; step++) {
    const next = page.locator('form button[type="submit"], form input[type="submit"], form button:not([type])').first();
    await next.waitFor({ state: 'visible', timeout: 10_000 });
    await Promise.all([page.waitForLoadState('load'), next.click()]);
  }
  await page.waitForURL((u) => u.origin === E2E_ORIGIN, { timeout: 20_000 });
}

/**
 * A fresh Romanian browser context, in Romania's time zone as the office's browsers are (server
 * and browser must render dates alike or React discards the server's HTML), that opens `path` and
 * signs `user` in through the identity provider on the way, collecting the page's uncaught errors
 * and its console errors (React's hydration errors among them; a test expects none at its end).
 */
export async function openSignedIn(
  browser: Browser,
  path: string,
  user: { email: string; password: string },
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[]; consoleErrors: string[] }> {
  const context = await browser.newContext({ locale: 'ro-RO', timezoneId: 'Europe/Bucharest', viewport: { width: 1366, height: 900 }, ...options });
  const page = await context.newPage();
  const { errors, consoleErrors } = watchPageErrors(page);
  await page.goto(`${E2E_BASE_URL}${path}`);
  await signInThroughIdp(page, user);
  return { context, page, errors, consoleErrors };
}

/** The page's uncaught errors and its console errors from now on (React's hydration errors among them). */
export function watchPageErrors(page: Page): { errors: string[]; consoleErrors: string[] } {
  const errors: string[] = [];
  const consoleErrors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  // Ours only: the identity provider's own sign-in page (another origin) is not the product's.
  page.on('console', (m) => {
    const at = m.location().url;
    if (m.type() === 'error' && (!at || at.startsWith(`${E2E_ORIGIN}/`))) consoleErrors.push(`${m.text()} (${at})`);
  });
  return { errors, consoleErrors };
}
