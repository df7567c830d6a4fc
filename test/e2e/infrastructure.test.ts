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
    // The page read between two reports: a check whose since is the same in both did not flip in between.
    const report = await health(page);
    await page.reload();
    await line.waitFor();
    const shown = new Map<string, { state: string | null; status: string; since: string }>();
    for (const key of CHECKS) {
      const indicator = page.getByTestId(`health-${key}`);
      shown.set(key, {
        state: await indicator.getAttribute('data-state'),
        status: await indicator.locator('.indicator__status').innerText(),
        since: await page.getByTestId(`health-${key}-since`).innerText(),
      });
    }
    const again = await health(page);
    let compared = 0;
    for (const key of CHECKS) {
      const { ok, since } = report.checks[key];
      // A check that flipped meanwhile has a new since: it cannot be compared.
      if (again.checks[key].since !== since) continue;
      expect([key, shown.get(key)]).toEqual([key, {
        state: ok ? 'ok' : 'fail',
        status: ok ? 'funcțional' : 'indisponibil',
        // On Romanian time, written as people in Romania write it.
        since: `din ${romanian.format(new Date(since))}`,
      }]);
      compared += 1;
    }
    expect(compared).toBeGreaterThanOrEqual(CHECKS.length - 1);
    expect(await line.innerText()).not.toMatch(/\d{4}-\d{2}-\d{2}|T\d{2}:/);

    const card = page.getByTestId('backups');
    const before = await page.evaluate(() => document.querySelector('[data-testid="backup-runs"] tbody tr')?.getAttribute('data-run-id') ?? null);
    await page.getByTestId('backup-start').click();
    await expect(page.getByTestId('backup-message').innerText()).resolves.toMatch(/^(Copia de siguranță a pornit\.|O copie de siguranță este deja în curs; urmăriți-o mai jos\.)$/);
    // The page re-reads itself while the backup runs; the new run, listed first, ends done.
    await page.waitForFunction(
      (prior) => {
        const row = document.querySelector('[data-testid="backup-runs"] tbody tr');
        return !!row && row.getAttribute('data-run-id') !== prior
          && row.querySelector('[data-testid="backup-status"]')?.textContent === 'reușită';
      },
      before,
      { timeout: 180_000, polling: 1000 },
    );
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
