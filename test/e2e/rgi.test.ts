/**
 * RGI in a browser (issue 30), browser on Romanian time, any page or console error failing the
 * test: Dan picks a county and a year and reads the applications newest first, in ordinary
 * writing (dates as 10.03.2024, no capitals, no ISO dates), sorts them by number, and opens the
 * last one of a long list: its details appear in view, beside the list on a wide screen and
 * scrolled to on a narrow one. Against the stack's land-registry simulator.
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openSignedIn } from '../helpers/e2e';

const DAN = { email: 'dan@birou.ro', password: 'parola-dan' };
const YEAR = '2024';

/** dd.mm.yyyy → yyyy-mm-dd, to compare. */
const isoOf = (ro: string) => ro.split('.').reverse().join('-');

async function columnTexts(page: Page, index: number): Promise<string[]> {
  return page.getByTestId('rgi-applications').locator(`tbody tr td:nth-child(${index})`).allInnerTexts();
}

async function detailsInView(page: Page): Promise<boolean> {
  const details = page.getByTestId('rgi-details');
  await details.waitFor();
  // Let a smooth or late scroll settle.
  await page.waitForTimeout(300);
  const box = await details.boundingBox();
  const height = page.viewportSize()!.height;
  return !!box && box.y >= 0 && box.y < height - 40;
}

describe('RGI in the browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('the list newest first, in ordinary writing, sortable, and the opened application in view', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/rgi', DAN);
    await page.getByTestId('rgi-county').selectOption({ label: 'Cluj' });
    await page.getByTestId('rgi-year').fill(YEAR);
    await page.getByTestId('rgi-load').click();
    const table = page.getByTestId('rgi-applications');
    await table.waitFor({ timeout: 30_000 });

    const dates = await columnTexts(page, 2);
    expect(dates.length).toBeGreaterThan(20);
    for (const d of dates) expect(d).toMatch(/^\d{2}\.\d{2}\.2024$/);
    const iso = dates.map(isoOf);
    expect(iso).toEqual([...iso].sort().reverse());
    await expect(page.getByTestId('rgi-sort-registrationDate').locator('xpath=..').getAttribute('aria-sort')).resolves.toBe('descending');
    // The portal's states come in capitals ("SOLUȚIONATĂ"): shown as "Soluționată".
    for (const s of await columnTexts(page, 4)) expect(s).not.toBe(s.toLocaleUpperCase('ro'));
    expect(await table.innerText()).not.toMatch(/\d{4}-\d{2}-\d{2}/);

    // By number, ascending, then descending.
    await page.getByTestId('rgi-sort-applicationNo').click();
    const numbers = (await columnTexts(page, 1)).map((n) => Number(n.split('/')[0]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    await page.getByTestId('rgi-sort-applicationNo').click();
    const down = (await columnTexts(page, 1)).map((n) => Number(n.split('/')[0]));
    expect(down).toEqual([...down].sort((a, b) => b - a));

    // The last application of the list, scrolled to: its details show in view, beside the list.
    const last = table.locator('tbody tr').last().getByRole('button');
    await last.scrollIntoViewIfNeeded();
    const no = (await last.innerText()).trim();
    await last.click();
    await page.getByTestId('rgi-details').getByText(`Cererea ${no}`).waitFor({ timeout: 20_000 });
    expect(await detailsInView(page)).toBe(true);
    // Each issued document's state agrees with any type before it ("Încheiere disponibil" did not).
    const docs = page.getByTestId('rgi-details').locator('.cf-epay__parcels li');
    await docs.first().waitFor({ timeout: 20_000 });
    for (const d of await docs.allInnerTexts()) expect(d).toMatch(/ (gata de descărcare|în pregătire)( |$)/);
    await page.screenshot({ path: 'test-results/e2e-rgi.png' });

    // A narrow screen: the details sit below the list, and the page takes the user to them.
    await page.setViewportSize({ width: 900, height: 800 });
    await page.getByTestId('rgi-details').getByRole('button', { name: 'Închide' }).click();
    const again = table.locator('tbody tr').last().getByRole('button');
    await again.scrollIntoViewIfNeeded();
    await again.click();
    expect(await detailsInView(page)).toBe(true);
    await page.screenshot({ path: 'test-results/e2e-rgi-narrow.png' });

    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
