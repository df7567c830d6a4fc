/**
 * Parcel sync in the browser (issue 30), on a planted UAT, as Ana (full scope) uses it:
 *  - search: she picks the UAT by name and searches an owner typed without diacritics; the parcel
 *    comes from the local store (source shown) and opens its own page;
 *  - dashboard: she reads what the UAT's last sync changed, layer by layer (added, removed,
 *    changed, as the sync runs recorded them), follows the UAT, finds it still followed after a
 *    reload and stops following it;
 *  - export: a local export (no portal) of the base bundle downloads a ZIP whose parcel
 *    GeoPackage (read with ogrinfo) holds the UAT's parcels.
 * The browser is on Romania's time zone and the pages may log no error. The planted UAT, its
 * features and its sync runs are removed after. Screenshots in test-results/. Runs against
 * E2E_BASE_URL or config.app.publicUrl (the stack).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openSignedIn } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { plantGeoportalFixtures, removeGeoportalFixtures, type GeoportalFixture } from '../helpers/geoportalFixtures';

const SIRUTA_BASE = 992600;
const SCREENSHOTS = path.join(projectRoot, 'test-results');
const ANA = { email: 'ana@birou.ro', password: 'parola-ana' };

async function cleanUp(): Promise<void> {
  const db = getPool();
  await db.query(`DELETE FROM watchlist WHERE siruta BETWEEN $1 AND $1 + 99`, [SIRUTA_BASE]);
  await db.query(`DELETE FROM gis_sync_runs WHERE siruta BETWEEN $1 AND $1 + 99`, [SIRUTA_BASE]);
  await removeGeoportalFixtures(db, SIRUTA_BASE);
}

/** Picks the planted UAT in the page's picker, typed as one types: without diacritics. */
async function pickUat(page: import('playwright-core').Page, fx: GeoportalFixture): Promise<void> {
  await page.getByLabel('UAT', { exact: true }).fill('harman proba');
  await page.getByRole('option', { name: new RegExp(`${fx.uatA.name}.*SIRUTA ${fx.uatA.siruta}`) }).click();
}

describe('parcel sync in the browser', () => {
  let browser: Browser;
  let fx: GeoportalFixture;

  beforeAll(async () => {
    await cleanUp();
    fx = await plantGeoportalFixtures(getPool(), { sirutaBase: SIRUTA_BASE, centre: [25.6, 45.65], nameA: 'Hărman Probă Tablou', nameB: 'Prejmer Probă Tablou', county: 'Brașov' });
    // Two syncs of the parcels (the older one must not be shown) and one of the buildings.
    const run = `INSERT INTO gis_sync_runs (siruta, layer_id, mode, trigger, status, started_at, finished_at, added, removed, changed)
                 VALUES ($1, $2, 'delta', 'manual', $3, $4::timestamptz - interval '5 minutes', $4::timestamptz, $5, $6, $7)`;
    const a = fx.uatA.siruta;
    await getPool().query(run, [a, 'TERENURI_ACTIVE', 'done', '2026-11-20T08:00:00Z', 40, 0, 0]);
    await getPool().query(run, [a, 'TERENURI_ACTIVE', 'done', '2026-11-24T12:30:00Z', 3, 1, 2]);
    await getPool().query(run, [a, 'TERENURI_ACTIVE', 'failed', '2026-11-24T13:00:00Z', 0, 0, 0]);
    await getPool().query(run, [a, 'CLADIRI_ACTIVE', 'done', '2026-11-24T12:35:00Z', 0, 0, 0]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await cleanUp();
    await closePool();
  });

  test('pick a UAT by name, read what its last sync changed by layer, follow it and stop following', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/parcel-sync/dashboard', ANA);
    expect(new URL(page.url()).pathname).toBe('/parcel-sync/dashboard');

    await pickUat(page, fx);
    await page.waitForURL((u) => u.searchParams.get('siruta') === String(fx.uatA.siruta));
    await page.getByRole('heading', { name: `Tablou UAT: ${fx.uatA.name}` }).waitFor();

    // What the last finished sync of each layer changed: parcels first, the failed run not counted.
    const changes = page.getByTestId('dashboard-sync-changes');
    const rows = changes.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.nth(0).locator('td').allInnerTexts()).resolves.toEqual(['24.11.2026, 14:30', '3', '1', '2', 'parcele: 3 adăugate, 1 eliminată, 2 modificate']);
    await expect(rows.nth(1).locator('td').allInnerTexts()).resolves.toEqual(['24.11.2026, 14:35', '0', '0', '0', 'clădiri: nicio schimbare']);

    // Follow the UAT from its dashboard (the watchlist API), still followed after a reload.
    const followBox = page.getByTestId('follow-uat');
    await followBox.getByRole('button', { name: 'Urmărește UAT-ul' }).click();
    await followBox.getByRole('button', { name: 'Nu mai urmări UAT-ul' }).waitFor();
    await followBox.getByText(`Urmăriți ${fx.uatA.name}`).waitFor();
    const followed = await getPool().query(`SELECT w.kind, w.label FROM watchlist w JOIN app_users u ON u.id = w.user_id WHERE u.email = $1 AND w.siruta = $2`, [ANA.email, fx.uatA.siruta]);
    expect(followed.rows).toEqual([{ kind: 'uat', label: `UAT ${fx.uatA.name} (Brașov)` }]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'uat-dashboard-follow.png'), fullPage: true });
    await page.reload();
    await followBox.getByRole('button', { name: 'Nu mai urmări UAT-ul' }).click();
    await followBox.getByRole('button', { name: 'Urmărește UAT-ul' }).waitFor();
    expect((await getPool().query(`SELECT 1 FROM watchlist WHERE siruta = $1`, [fx.uatA.siruta])).rowCount).toBe(0);

    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);

  test("the local store's row of a UAT adds up: every parcel counted, those without a drawing apart", async () => {
    const a = fx.uatA.siruta;
    // A portal parcel without geometry and an immovable imported without one (NO_GEOMETRY).
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom, geometry_source)
       VALUES ('TERENURI_ACTIVE', $1, 990001, '990001', NULL, NULL), ('TERENURI_ACTIVE', $1, -990002, '990002', NULL, 'NO_GEOMETRY')`,
      [a],
    );
    const truth = await getPool().query<{ total: number; drawn: number; buildings: number }>(
      `SELECT count(*) FILTER (WHERE layer_id = 'TERENURI_ACTIVE')::int AS total,
              count(*) FILTER (WHERE layer_id = 'TERENURI_ACTIVE' AND geom IS NOT NULL)::int AS drawn,
              count(*) FILTER (WHERE layer_id = 'CLADIRI_ACTIVE')::int AS buildings
         FROM gis_features WHERE siruta = $1`,
      [a],
    );
    const t = truth.rows[0];
    expect(t.total - t.drawn).toBe(2);
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/parcel-sync', ANA);
    const row = page.locator('tr', { hasText: `(${a})` });
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    const int = (n: number) => n.toLocaleString('ro-RO');
    // UAT, county, parcels, buildings, without a drawing, …
    expect(cells.slice(0, 5)).toEqual([`${fx.uatA.name} (${a})`, 'Brașov', int(t.total), int(t.buildings), '2']);
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
    // The other tests of the file read the planted UAT as planted.
    await getPool().query(`DELETE FROM gis_features WHERE siruta = $1 AND object_id IN (990001, -990002)`, [a]);
  }, 120_000);

  test('search an owner without diacritics: the local parcel, its source, and its page', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/parcel-sync?tab=search', ANA);
    await pickUat(page, fx);
    await page.getByLabel('Proprietar', { exact: true }).fill('stefanescu');
    await page.getByRole('button', { name: 'Caută', exact: true }).click();
    await page.getByTestId('owner-source').filter({ hasText: 'sursa: baza locală' }).waitFor();
    const row = page.locator('table tr', { hasText: fx.enriched.cadastralRef });
    await row.getByText('ŞTEFĂNESCU ION').waitFor();
    await expect(row.locator('td').nth(1).innerText()).resolves.toBe(`${fx.enriched.cadastralRef}-C1`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'parcel-sync-search.png'), fullPage: true });
    await row.getByRole('link', { name: fx.enriched.cadastralRef }).click();
    await page.waitForURL((u) => u.pathname === `/parcel-sync/parcel/${fx.enriched.id}`);
    await page.getByText(`${fx.enriched.cadastralRef}-C1`).first().waitFor();
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);

  test('a local export of the base bundle downloads a ZIP whose parcel GeoPackage holds the UAT\'s parcels', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/parcel-sync/export', ANA);
    await pickUat(page, fx);
    await page.getByText('De bază', { exact: true }).click();
    await page.getByRole('button', { name: 'Export local (fără portal)' }).click();
    const link = page.getByRole('link', { name: /\.zip$/ });
    await link.waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-export-'));
    try {
      const zip = path.join(dir, 'export.zip');
      await download.saveAs(zip);
      const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).split('\n').filter(Boolean);
      const gpkg = names.find((n) => n.endsWith('_parcele.gpkg'));
      expect(gpkg).toBeDefined();
      execFileSync('unzip', ['-q', zip, gpkg!, '-d', dir]);
      const info = execFileSync('ogrinfo', ['-so', '-al', path.join(dir, gpkg!)], { encoding: 'utf8' });
      const stored = await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND geom IS NOT NULL`, [fx.uatA.siruta]);
      expect(info).toContain(`Feature Count: ${stored.rows[0].n}`);
      expect(info).toMatch(/EPSG[",]*3844/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 180_000);
});
