/**
 * The infrastructure page in a browser (issue 41), on Romanian time, any page or console error
 * failing the test: Ana, an administrator, reads each part the service stands on (database,
 * Temporal, storage, mail, the land-registry portal, backups) with its state and since when, as
 * GET /api/health reports it; she starts a backup and follows it to its end, after which the
 * backups' indicator is green with a backup of minutes ago. Dan sees the same health line and no
 * backups card. Against the test stack and its workers.
 */
import type { Browser, Page } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, openSignedIn } from '../helpers/e2e';

const ANA = { email: 'ana@birou.ro', password: 'parola-ana' };
const DAN = { email: 'dan@birou.ro', password: 'parola-dan' };
const CHECKS = ['database', 'temporal', 'storage', 'mail', 'portal', 'backup'] as const;

/** "din 28.11.2026, 23:41": how a person in Romania writes the time, independent of the page's formatter. */
const romanian = new Intl.DateTimeFormat('ro-RO', { dateStyle: 'short', timeStyle: 'short', timeZone: 'Europe/Bucharest' });

async function health(page: Page): Promise<{ checks: Record<string, { ok: boolean; since: string; detail?: string }> }> {
  const res = await page.request.get(`${E2E_BASE_URL}/api/health`);
  expect(res.status()).toBe(200);
  return res.json();
}

describe('the infrastructure page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('an administrator sees every part with since when, starts a backup and sees it done', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/infrastructura-harti', ANA);
    const line = page.getByTestId('health-line');
    await line.waitFor();
    const report = await health(page);
    for (const key of CHECKS) {
      const indicator = page.getByTestId(`health-${key}`);
      await expect(indicator.getAttribute('data-state')).resolves.toBe(report.checks[key].ok ? 'ok' : 'fail');
      await expect(indicator.locator('.indicator__status').innerText()).resolves.toBe(report.checks[key].ok ? 'funcțional' : 'indisponibil');
      // `since` moves only when a check flips, so the page and this later request agree.
      await expect(page.getByTestId(`health-${key}-since`).innerText()).resolves.toBe(`din ${romanian.format(new Date(report.checks[key].since))}`);
    }
    expect(await line.innerText()).not.toMatch(/\d{4}-\d{2}-\d{2}|T\d{2}:/);

    const card = page.getByTestId('backups');
    await page.getByTestId('backup-start').click();
    await expect(page.getByTestId('backup-message').innerText()).resolves.toMatch(/^(Copia de siguranță a pornit\.|O copie de siguranță este deja în curs; urmăriți-o mai jos\.)$/);
    // The page re-reads itself while the backup runs; the newest run ends done.
    const newest = card.getByTestId('backup-status').first();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="backup-status"]')?.textContent?.startsWith('reușită') === true,
      undefined,
      { timeout: 180_000, polling: 1000 },
    );
    expect(await newest.innerText()).toBe('reușită');
    await expect(card.getByTestId('backup-wal').innerText()).resolves.toMatch(/^Jurnalul de tranzacții este arhivat până la \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}/);

    await page.reload();
    await expect(page.getByTestId('health-backup').getAttribute('data-state')).resolves.toBe('ok');
    await expect(page.getByTestId('health-backup').locator('.indicator__tip').textContent()).resolves.toMatch(/^ultima copie acum 0 h/);
    await page.screenshot({ path: 'test-results/e2e-infrastructure.png', fullPage: true });
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 300_000);

  test('another user sees the health line and no backups', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/infrastructura-harti', DAN);
    await page.getByTestId('health-line').waitFor();
    for (const key of CHECKS) await page.getByTestId(`health-${key}-since`).waitFor();
    expect(await page.getByTestId('backups').count()).toBe(0);
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
