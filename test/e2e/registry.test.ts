/**
 * The registry in a browser (issue 30), as office people use it, browser on Romanian time and
 * any page or console error failing the test:
 * - Dan (company U) records an incoming document, attaches a PDF and reads the entry's history:
 *   the attachment by its file name, never its id; the list counts "1 atașament"; his company
 *   filter offers nothing he cannot read; on a 390 px phone the page does not scroll sideways.
 * - Mihai (company G, the group) filters by any of the four companies.
 * This file owns registry year 2051.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchChromium, openSignedIn } from '../helpers/e2e';
import { closePool, getPool } from '../../domain/db/pool';

const YEAR = 2051;
const DAN = { email: 'dan@birou.ro', password: 'parola-dan' };
const MIHAI = { email: 'mihai@birou.ro', password: 'parola-mihai' };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

async function clearYear(): Promise<void> {
  await getPool().query(`DELETE FROM registry_entries WHERE year = $1`, [YEAR]);
  await getPool().query(`DELETE FROM registry_counters WHERE year = $1`, [YEAR]);
}

describe('registry in the browser', () => {
  let browser: Browser;
  const subject = `Cerere de probă ${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    await clearYear();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await clearYear();
    await closePool();
  });

  test('Dan records a document with an attachment; the history names the file; a phone shows it without sideways scrolling', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/registratura', DAN);
    await page.getByRole('heading', { name: 'Registrul de intrări și ieșiri' }).waitFor();
    // Dan reads only his company's registry: no filter offering the others.
    await expect(page.getByRole('search').locator('select[name="company"] option').count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'Înregistrare nouă' }).click();
    const form = page.getByTestId('registry-form');
    await form.getByLabel('Data', { exact: true }).fill(`${YEAR}-03-10`);
    await form.getByLabel('Subiect', { exact: true }).fill(subject);
    await form.getByLabel('Expeditor', { exact: true }).fill('Ionescu Ana');
    await form.getByRole('button', { name: 'Înregistrează' }).click();
    await page.getByTestId('registry-number').filter({ hasText: `U-${YEAR}-00001` }).waitFor();

    await page.getByTestId('registry-attachments').locator('input[type="file"]').setInputFiles({
      name: 'contract-vânzare.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'),
    });
    await page.getByTestId('registry-attachments').getByRole('link', { name: 'contract-vânzare.pdf' }).waitFor();

    const history = page.getByTestId('registry-history');
    await history.getByText('Atașament adăugat').waitFor();
    const historyText = await history.innerText();
    expect(historyText).toContain('contract-vânzare.pdf');
    expect(historyText).not.toMatch(UUID);
    await expect(page.getByTestId('registry-list').locator('tr', { hasText: subject }).innerText()).resolves.toContain('1 atașament');
    await page.screenshot({ path: 'test-results/e2e-registry.png', fullPage: true });

    // A phone: the list and the open entry fit the screen's width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload({ waitUntil: 'networkidle' });
    await page.getByTestId('registry-number').filter({ hasText: `U-${YEAR}-00001` }).waitFor();
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth }));
    expect(widths.page).toBeLessThanOrEqual(widths.screen);
    await page.screenshot({ path: 'test-results/e2e-registry-phone.png', fullPage: true });

    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);

  test('Mihai, of the group company, filters by each of the four companies', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/registratura', MIHAI);
    const filter = page.getByTestId('registry-company-filter');
    await filter.waitFor();
    const options = await filter.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(['', 'B', 'U', 'S', 'G']);
    await filter.selectOption('U');
    await page.getByRole('button', { name: 'Filtrează' }).click();
    await page.waitForURL((u) => u.searchParams.get('company') === 'U');
    await page.getByTestId('registry-list').locator('tr', { hasText: subject }).waitFor();
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
