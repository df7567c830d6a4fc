/**
 * CF extracts end to end in a browser (issues 15 and 26), against the whole stack (its workers,
 * certificate portal and central API simulators), browser clock in Europe/Bucharest, any page
 * error failing the test:
 * - Dan opens the epay tab prefilled as the map's CF action does (`?tab=epay&cad=…&siruta=…`),
 *   sees the portal account in use and its credits, the one-credit notice and the parcel without
 *   an extract, orders it, watches it become valid with a PDF to download; a second order of it
 *   is answered with a link to the PDF that exists.
 * - Mihai, a pilot user of the central API, orders from the same tab through the central API
 *   under his own account (no office credits shown) and finds the order in his central list.
 */
import type { Browser } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, openSignedIn } from '../helpers/e2e';
import { freshCadastral, someUats } from '../helpers/cfStack';
import { closePool, getPool } from '../../domain/db/pool';
import { config } from '../../domain/config';

const BROWSER = { timezoneId: 'Europe/Bucharest' };

describe('CF extract order, end to end', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(['--disable-gpu']);
  });
  afterAll(async () => {
    await browser?.close();
    await closePool();
  });

  test('Dan orders an extract from the epay tab, downloads it once valid, and a repeat order links that PDF', async () => {
    const uat = someUats(1, 7)[0];
    // The UAT is in the store's catalogue, as after the first portal connection (the picker reads it).
    await getPool().query(
      `INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Test', $3) ON CONFLICT (siruta) DO NOTHING`,
      [uat.siruta, uat.name, uat.workspacePk],
    );
    const cad = freshCadastral(1);
    const path = `/parcel-sync?tab=epay&cad=${cad}&siruta=${uat.siruta}`;
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, path, { email: 'dan@birou.ro', password: 'parola-dan' }, BROWSER);
    if (!page.url().includes('tab=epay')) await page.goto(`${E2E_BASE_URL}${path}`);

    await page.getByTestId('epay').waitFor({ state: 'visible', timeout: 20_000 });
    await expect(page.getByTestId('tab-epay').getAttribute('aria-current')).resolves.toBe('page');
    await page.getByTestId('cf-credits').getByText('Credite disponibile').waitFor({ timeout: 20_000 });
    await expect(page.getByTestId('cf-account').textContent()).resolves.toContain(config.cfportal.username);
    await expect(page.getByTestId('cf-cads').inputValue()).resolves.toBe(cad);
    await page.getByTestId('cf-parcels').getByText('fără extras · comanda costă 1 credit').waitFor({ timeout: 20_000 });

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
    await page.getByTestId('cf-parcels').getByText('valabil până la').waitFor({ timeout: 20_000 });

    // Ordering it again: the valid extract is there, linked, and no credit is spent.
    await page.getByTestId('cf-order').click();
    const notice = page.getByTestId('cf-notice');
    await notice.getByText('Există deja un extras valabil').waitFor({ timeout: 20_000 });
    await expect(notice.getByRole('link').first().getAttribute('href')).resolves.toBe(href);
    await page.screenshot({ path: 'test-results/e2e-cf-epay.png', fullPage: true });

    // The inbox tells Dan once that the order's extract is ready, with a link back to it.
    // (The notice follows the stored PDF by a moment: the page is read again until it is there.)
    const ready = page.getByTestId('notification').filter({ hasText: `Extras CF gata: ${cad}` });
    for (let i = 0; i < 20; i++) {
      await page.goto(`${E2E_BASE_URL}/notificari`);
      if ((await ready.count()) > 0) break;
      await page.waitForTimeout(1000);
    }
    await expect(ready.count()).resolves.toBe(1);
    await expect(ready.getByRole('link').first().getAttribute('href')).resolves.toBe(`/parcel-sync?tab=epay&cad=${cad}`);
    expect(errors).toEqual([]);
    // The one console line is the browser's own note of the repeat order's 409 catalog_hit (the
    // contract's answer, which the tab turns into the notice above).
    expect(consoleErrors).toEqual([expect.stringMatching(/status of 409 \(Conflict\) \(.*\/api\/cfportal\/order\)$/)]);
    await context.close();
  }, 180_000);

  test('Mihai, a pilot user, orders through the central API from the epay tab and sees his central order', async () => {
    // A parcel of the central store nobody ordered yet (one of a UAT's 200 first, at random).
    const sim = config.central.baseUrl;
    const uats = (await fetch(`${sim}/__sim/truth`).then((r) => r.json())) as { uats: Array<{ siruta: number; name: string }> };
    const uat = uats.uats[0];
    const { features } = (await fetch(`${sim}/__sim/truth?siruta=${uat.siruta}`).then((r) => r.json())) as {
      features: Array<{ layerId: string; cadastralRef: string }>;
    };
    const parcels = features.filter((f) => f.layerId === 'TERENURI_ACTIVE');
    const cad = parcels[Math.floor(Math.random() * parcels.length)].cadastralRef;
    await getPool().query(
      `INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Test', 1) ON CONFLICT (siruta) DO NOTHING`,
      [uat.siruta, uat.name],
    );
    const path = `/parcel-sync?tab=epay&cad=${encodeURIComponent(cad)}&siruta=${uat.siruta}`;
    const { context, page, errors } = await openSignedIn(browser, path, { email: 'mihai@birou.ro', password: 'parola-mihai' }, BROWSER);
    if (!page.url().includes('tab=epay')) await page.goto(`${E2E_BASE_URL}${path}`);

    await page.getByTestId('epay').waitFor({ state: 'visible', timeout: 20_000 });
    await page.getByTestId('cf-account').getByText('API-ul central').waitFor({ timeout: 20_000 });
    await expect(page.getByTestId('cf-credits').count()).resolves.toBe(0);
    await page.getByTestId('cf-parcels').getByText('fără extras').waitFor({ timeout: 20_000 });
    await page.getByTestId('cf-order').click();
    await page.getByTestId('cf-notice').getByText(`Comandat prin API-ul central: ${cad}`).waitFor({ timeout: 20_000 });
    // His central list shows it; the central API moves it to issued as it is read, with its PDF.
    const row = page.getByTestId('cf-orders').locator('tr', { hasText: cad }).first();
    await row.waitFor({ timeout: 20_000 });
    await row.getByText('emis').waitFor({ timeout: 30_000 });
    await expect(row.getByRole('link', { name: 'Descarcă PDF' }).getAttribute('href')).resolves.toMatch(/^\/api\/cf\/.+\/pdf$/);
    await page.screenshot({ path: 'test-results/e2e-cf-epay-central.png', fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
