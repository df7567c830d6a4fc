/**
 * Geoportal end to end (issue 7, deliverable 5): Dan signs in through the identity provider, opens
 * the map, which renders planted parcels (siruta range 990300-990399, inserted into the stack's
 * store here); search flies to a parcel; a click opens the feature panel and a click on empty map
 * closes it; shift-click selects, the GPKG export downloads a file, shift-drag selects a box,
 * ESC leaves selection mode. The same again below zoom 16, where the parcel tiles carry no uuid
 * and no cadastral number (docs/tiles.md "Performance"): a click opens the panel by siruta and
 * object id, shift-click and a box select parcels resolved through the zoom-16 tiles, and the
 * export holds exactly them.
 * Screenshot: test-results/geoportal-map.png. Runs against E2E_BASE_URL or config.app.publicUrl.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, signInThroughIdp } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { plantGeoportalFixtures, removeGeoportalFixtures, type GeoportalFixture } from '../helpers/geoportalFixtures';

const BASE_URL = E2E_BASE_URL;
const SCREENSHOT = path.join(projectRoot, 'test-results', 'geoportal-map.png');
const SIRUTA_BASE = 990300;
const USER = { email: 'dan@birou.ro', password: 'parola-dan' };

const signIn = (page: Page) => signInThroughIdp(page, USER);

type Parcel = GeoportalFixture['parcels'][number];

/**
 * Screen position of a rendered parcel (the mean of its first ring). Found by uuid from zoom 16,
 * by (siruta, feature id = object id) below it, where the tiles carry no uuid.
 */
async function screenPointOf(page: Page, parcel: Parcel): Promise<{ x: number; y: number }> {
  const p = await page.evaluate((want) => {
    const map = (window as any).geoportalMap;
    const f = map
      .queryRenderedFeatures({ layers: ['parcele-fill'] })
      .find((x: any) => x.properties.id === want.id || (x.id === want.objectId && x.properties.siruta === want.siruta));
    if (!f) return null;
    const ring: [number, number][] = f.geometry.type === 'Polygon' ? f.geometry.coordinates[0] : f.geometry.coordinates[0][0];
    const lon = ring.reduce((s, c) => s + c[0], 0) / ring.length;
    const lat = ring.reduce((s, c) => s + c[1], 0) / ring.length;
    const pt = map.project([lon, lat]);
    const box = map.getCanvas().getBoundingClientRect();
    return { x: box.left + pt.x, y: box.top + pt.y };
  }, parcel);
  if (!p) throw new Error(`parcel ${parcel.cadastralRef} is not rendered`);
  return p;
}

const selectionCount = async (page: Page) => Number((await page.getByTestId('selection-count').textContent())?.match(/\d+/)?.[0] ?? 0);

async function shiftDrag(page: Page, a: { x: number; y: number }, b: { x: number; y: number }): Promise<void> {
  await page.keyboard.down('Shift');
  await page.mouse.move(Math.min(a.x, b.x) - 4, Math.min(a.y, b.y) - 4);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(Math.max(a.x, b.x) + 4, Math.max(a.y, b.y) + 4, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
}

describe('geoportal map, end to end', () => {
  let browser: Browser;
  let fx: GeoportalFixture;

  beforeAll(async () => {
    fx = await plantGeoportalFixtures(getPool(), {
      sirutaBase: SIRUTA_BASE,
      centre: [23.55, 46.74],
      nameA: 'Sânpaul Probă E2E',
      nameB: 'Valea Seacă Probă E2E',
    });
    browser = await launchChromium(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  });

  afterAll(async () => {
    await browser?.close();
    await removeGeoportalFixtures(getPool(), SIRUTA_BASE);
    await closePool();
  });

  test('the map renders parcels, search flies to one, a click opens the panel, selection exports and ESC leaves it', async () => {
    const context = await browser.newContext({ locale: 'ro-RO', viewport: { width: 1366, height: 860 }, acceptDownloads: true });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    await page.goto(`${BASE_URL}/geoportal`);
    await signIn(page);
    expect(new URL(page.url()).pathname).toBe('/geoportal');
    const map = page.getByTestId('geoportal-map');
    await page.waitForSelector('[data-testid="geoportal-map"][data-ready="1"]', { timeout: 30_000 });

    // Search without diacritics, pick the parcel: the map flies there and shows its panel.
    await page.getByTestId('geoportal-search').fill(fx.enriched.cadastralRef);
    const hit = page.getByTestId('geoportal-search-results').getByRole('button', { name: /Sânpaul Probă E2E/ });
    await hit.first().click();
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="geoportal-map"]')?.getAttribute('data-rendered-parcels')) > 0, null, {
      timeout: 30_000,
    });
    await expect(page.getByTestId('feature-panel-title').textContent()).resolves.toContain(fx.enriched.cadastralRef);
    const zoom = Number(await map.getAttribute('data-zoom'));
    expect(zoom).toBeGreaterThan(15);

    // Close the panel by clicking empty map, zoom out to the whole UAT and click a parcel.
    await page.evaluate(() => (window as any).geoportalMap.jumpTo({ zoom: 16.2 }));
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="geoportal-map"]')?.getAttribute('data-zoom')) < 16.5);
    await page.mouse.click(700, 200);
    await page.getByTestId('feature-panel').waitFor({ state: 'detached', timeout: 10_000 });
    const target = fx.parcels[5];
    const pt = await screenPointOf(page, target);
    await page.mouse.click(pt.x, pt.y);
    await page.getByTestId('feature-panel-title').filter({ hasText: target.cadastralRef }).waitFor({ timeout: 10_000 });
    await page.waitForTimeout(500);
    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(20_000);

    // Shift-click selects two parcels; the GPKG export downloads a named file.
    for (const p of [fx.parcels[0], fx.parcels[1]]) {
      const at = await screenPointOf(page, p);
      await page.keyboard.down('Shift');
      await page.mouse.click(at.x, at.y);
      await page.keyboard.up('Shift');
    }
    await expect(page.getByTestId('selection-count').textContent()).resolves.toBe('2 parcele selectate');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-gpkg').click()]);
    expect(download.suggestedFilename()).toBe('parcele_sanpaul-proba-e2e_2.gpkg');

    // Shift + drag draws a box and adds every parcel under it to the selection.
    await shiftDrag(page, await screenPointOf(page, fx.parcels[2]), await screenPointOf(page, fx.parcels[3]));
    const boxed = await selectionCount(page);
    expect(boxed).toBeGreaterThanOrEqual(4);

    // Below zoom 16: the tiles hold only what is drawn (no uuid, no cadastral number).
    await page.evaluate(() => (window as any).geoportalMap.jumpTo({ zoom: 14.5 }));
    await page.waitForFunction(
      () =>
        Number(document.querySelector('[data-testid="geoportal-map"]')?.getAttribute('data-zoom')) < 15 &&
        Number(document.querySelector('[data-testid="geoportal-map"]')?.getAttribute('data-rendered-parcels')) > 0,
      null,
      { timeout: 30_000 },
    );
    const lowZoomProps = await page.evaluate((siruta) => {
      const map = (window as any).geoportalMap;
      return map
        .queryRenderedFeatures({ layers: ['parcele-fill'] })
        .filter((f: any) => f.properties.siruta === siruta)
        .map((f: any) => ({ id: f.id, keys: Object.keys(f.properties).sort() }));
    }, fx.uatA.siruta);
    expect(lowZoomProps.length).toBeGreaterThan(0);
    for (const f of lowZoomProps) {
      expect(typeof f.id).toBe('number');
      expect(f.keys).not.toContain('id');
      expect(f.keys).not.toContain('cadastral_ref');
    }
    // A click opens the panel by (siruta, object id); a click on empty map closes it.
    const low = fx.parcels[6];
    const lowPt = await screenPointOf(page, low);
    await page.mouse.click(lowPt.x, lowPt.y);
    await page.getByTestId('feature-panel-title').filter({ hasText: low.cadastralRef }).waitFor({ timeout: 10_000 });
    await page.mouse.click(700, 150);
    await page.getByTestId('feature-panel').waitFor({ state: 'detached', timeout: 10_000 });
    // Shift-click adds one parcel, a box four more: their uuids come from the zoom-16 tiles.
    const shiftPick = fx.parcels[7];
    const at7 = await screenPointOf(page, shiftPick);
    await page.keyboard.down('Shift');
    await page.mouse.click(at7.x, at7.y);
    await page.keyboard.up('Shift');
    await page.getByTestId('selection-count').filter({ hasText: `${boxed + 1} parcele selectate` }).waitFor({ timeout: 10_000 });
    const row = [fx.parcels[8], fx.parcels[9], fx.parcels[10], fx.parcels[11]];
    await shiftDrag(page, await screenPointOf(page, row[0]), await screenPointOf(page, row[3]));
    await page.getByTestId('selection-count').filter({ hasText: `${boxed + 5} parcele selectate` }).waitFor({ timeout: 15_000 });
    const [geojson] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-geojson').click()]);
    expect(geojson.suggestedFilename()).toBe(`parcele_sanpaul-proba-e2e_${boxed + 5}.geojson`);
    const exported = JSON.parse(fs.readFileSync((await geojson.path())!, 'utf8')) as { features: Array<{ properties: { cadastral_ref: string } }> };
    const refs = exported.features.map((f) => f.properties.cadastral_ref);
    for (const p of [shiftPick, ...row]) expect(refs).toContain(p.cadastralRef);

    // Selection mode by toolbar; ESC leaves it.
    await page.getByTestId('selection-toggle').click();
    await expect(page.getByTestId('selection-toggle').getAttribute('aria-pressed')).resolves.toBe('true');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('selection-toggle').getAttribute('aria-pressed')).resolves.toBe('false');

    expect(pageErrors).toEqual([]);
    await context.close();
  });

  test('a link opens the same view and basemap, and Back walks the views', async () => {
    const context = await browser.newContext({ locale: 'ro-RO', viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${BASE_URL}/geoportal`);
    await signIn(page);
    await page.goto('about:blank');
    await page.goto(`${BASE_URL}/geoportal#16.2/46.74/23.55&basemap=osm`);
    await page.waitForSelector('[data-testid="geoportal-map"][data-ready="1"]', { timeout: 30_000 });
    const view = () =>
      page.evaluate(() => {
        const m = (window as any).geoportalMap;
        return { zoom: m.getZoom(), lat: m.getCenter().lat, lon: m.getCenter().lng };
      });
    // A fresh page load of the link shows its view and basemap.
    expect(new URL(page.url()).hash).toBe('#16.2/46.74/23.55&basemap=osm');
    const opened = await view();
    expect(opened.zoom).toBeCloseTo(16.2, 5);
    expect(opened.lat).toBeCloseTo(46.74, 5);
    expect(opened.lon).toBeCloseTo(23.55, 5);
    await expect(page.getByTestId('basemap-select').inputValue()).resolves.toBe('osm');

    // Moving the map writes the new view into the URL as a new history entry.
    await page.evaluate(() => (window as any).geoportalMap.jumpTo({ center: [23.6, 46.7], zoom: 14 }));
    await page.waitForFunction(() => window.location.hash.startsWith('#14/46.7/23.6'));
    await page.getByTestId('basemap-select').selectOption('none');
    await page.waitForFunction(() => window.location.hash === '#14/46.7/23.6');

    // Back: the basemap returns, then the first view.
    await page.goBack();
    await page.waitForFunction(() => window.location.hash === '#14/46.7/23.6&basemap=osm');
    await expect(page.getByTestId('basemap-select').inputValue()).resolves.toBe('osm');
    await page.goBack();
    await page.waitForFunction(() => Math.abs((window as any).geoportalMap.getZoom() - 16.2) < 1e-6);
    const back = await view();
    expect(back.lat).toBeCloseTo(46.74, 5);
    expect(back.lon).toBeCloseTo(23.55, 5);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
