/**
 * CF extracts end to end in a browser (issue 15, deliverable 5): Dan signs in, opens the epay tab
 * prefilled as the map's CF action does (`?tab=epay&cad=…&siruta=…`), sees the live credits, the
 * one-credit notice and the parcel without an extract, orders it, and watches the extract become
 * valid with a PDF to download. Against the whole stack (its workers and certificate portal).
 */
import type { Browser } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, signInThroughIdp } from '../helpers/e2e';
import { freshCadastral, someUats } from '../helpers/cfStack';
import { closePool, getPool } from '../../domain/db/pool';

describe('CF extract order, end to end', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(['--disable-gpu']);
  });
  afterAll(async () => {
    await browser?.close();
    await closePool();
  });

  test('Dan orders an extract from the epay tab and downloads it once valid', async () => {
    const page = await (await browser.newContext({ locale: 'ro-RO', viewport: { width: 1366, height: 900 } })).newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const uat = someUats(1, 7)[0];
    // The UAT is in the store's catalogue, as after the first portal connection (the picker reads it).
    await getPool().query(
      `INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Test', $3) ON CONFLICT (siruta) DO NOTHING`,
      [uat.siruta, uat.name, uat.workspacePk],
    );
    const cad = freshCadastral(1);
    await page.goto(`${E2E_BASE_URL}/parcel-sync?tab=epay&cad=${cad}&siruta=${uat.siruta}`);
    await signInThroughIdp(page, { email: 'dan@birou.ro', password: 'parola-dan' });
    if (!page.url().includes('tab=epay')) await page.goto(`${E2E_BASE_URL}/parcel-sync?tab=epay&cad=${cad}&siruta=${uat.siruta}`);

    await page.getByTestId('epay').waitFor({ state: 'visible', timeout: 20_000 });
    await expect(page.getByTestId('tab-epay').getAttribute('aria-current')).resolves.toBe('page');
    await page.getByTestId('cf-credits').getByText('Credite disponibile').waitFor({ timeout: 20_000 });
    await expect(page.getByTestId('cf-cads').inputValue()).resolves.toBe(cad);
    await expect(page.getByTestId('cf-parcels').textContent()).resolves.toContain('fără extras · comanda costă 1 credit');

    await page.getByTestId('cf-order').click();
    await page.getByTestId('cf-notice').getByText('Comanda a fost pusă în coadă').waitFor({ timeout: 20_000 });
    const row = page.getByTestId('cf-orders').locator('tr', { hasText: cad });
    await row.getByText('valabil până la').waitFor({ timeout: 90_000 });
    const href = await row.getByRole('link', { name: 'Descarcă PDF' }).getAttribute('href');
    const pdf = await page.evaluate(async (u) => {
      const r = await fetch(u!);
      return { status: r.status, type: r.headers.get('content-type'), head: new TextDecoder().decode((await r.arrayBuffer()).slice(0, 5)) };
    }, href);
    expect(pdf).toEqual({ status: 200, type: 'application/pdf', head: '%PDF-' });
    await expect(page.getByTestId('cf-parcels').textContent()).resolves.toContain('valabil până la');
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
