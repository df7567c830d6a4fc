/**
 * Geoportal end to end (issue 7, deliverable 5): Dan signs in through the identity provider, opens
 * the map, which renders planted parcels (siruta range 990300-990399, inserted into the stack's
 * store here); search flies to a parcel; a click opens the feature panel and a click on empty map
 * closes it; shift-click selects, the GPKG export downloads a file, shift-drag selects a box,
 * ESC leaves selection mode. The same again below zoom 16, where the parcel tiles carry no uuid
 * and no cadastral number (docs/tiles.md "Performance"): a click opens the panel by siruta and
 * object id, shift-click and a box select parcels resolved through the zoom-16 tiles, and the
 * export holds exactly them.
 * Issue 30: a user narrows an owner search to a UAT with the UAT picker, opens the parcel and
 * finds its CF and Follow buttons in view at 1440×900, clicks a building and gets the building, sees
 * one cadastral label for a parcel cut by a tile edge, picks a UAT without a boundary (the map
 * goes to its parcels), opens a UAT without parcels (the hint and its sync link) and follows it;
 * a pilot user with the full scope gets owner hits. Both in Romania's time zone, failing on any
 * console error.
 * Screenshots: test-results/geoportal-map.png, geoportal-panel-1440.png, geoportal-uat-card.png.
 * Runs against E2E_BASE_URL or config.app.publicUrl.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, openSignedIn, signInThroughIdp } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { wgs84ToStereo70 } from '../../domain/geo/epsg3844';
import { tilesChanged } from '../../domain/tiles/versions';
import { buildingPointOf, plantGeoportalFixtures, removeGeoportalFixtures, screenPointOf, type GeoportalFixture } from '../helpers/geoportalFixtures';

const BASE_URL = E2E_BASE_URL;
const SCREENSHOT = path.join(projectRoot, 'test-results', 'geoportal-map.png');
const SIRUTA_BASE = 990300;
const USER = { email: 'dan@birou.ro', password: 'parola-dan' };
const PILOT = { email: 'mihai@birou.ro', password: 'parola-mihai' };
/** Issue 30's planted extras, in this suite's siruta range. */
const NO_BOUNDARY = { siruta: SIRUTA_BASE + 10, name: 'Sfântu Gheorghe Probă E2E' };
const UNSYNCED = { siruta: SIRUTA_BASE + 11, name: 'Nesincronizat Probă E2E' };
const LONG_REF = '3009002';

const rectWkt = (x1: number, y1: number, x2: number, y2: number) => `POLYGON((${x1} ${y1},${x2} ${y1},${x2} ${y2},${x1} ${y2},${x1} ${y1}))`;

/**
 * Issue 30's extras: the enriched parcel's owner also in UAT B, a 300 m parcel across a zoom-16
 * tile edge in A, a UAT without boundary but with a parcel, and a UAT with boundary and no parcel.
 */
async function plantIssue30(fx: GeoportalFixture): Promise<{ longCentre: [number, number]; noBoundaryCentre: [number, number] }> {
  const db = getPool();
  const [cx, cy] = fx.xy;
  const insert = (siruta: number, objectId: number, ref: string, wkt: string, enrichment: object | null = null) =>
    db.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom, enrichment, enriched_at)
       VALUES ('TERENURI_ACTIVE', $1, $2, $3, ST_Area(ST_GeomFromText($4, 3844)), ST_GeomFromText($4, 3844), $5, $6)`,
      [siruta, objectId, ref, wkt, enrichment ? JSON.stringify(enrichment) : null, enrichment ? new Date() : null],
    );
  await insert(fx.uatB.siruta, 9001, '3007002', rectWkt(cx + 2100, cy, cx + 2140, cy + 40), { PROPRIETARI: 'ŞTEFĂNESCU ION (1/1)' });
  // The zoom-16 tile edge nearest to A's centre, 450 m north of it.
  const n = 2 ** 16;
  const edgeLon = (Math.round(((fx.centre[0] + 180) / 360) * n) / n) * 360 - 180;
  const lat = fx.centre[1] + 0.004;
  const [ex, ey] = wgs84ToStereo70([edgeLon, lat]);
  await insert(fx.uatA.siruta, 9002, LONG_REF, rectWkt(ex - 150, ey - 15, ex + 150, ey + 15));
  await db.query(`INSERT INTO gis_uats (siruta, name, county) VALUES ($1, $2, 'Cluj')`, [NO_BOUNDARY.siruta, NO_BOUNDARY.name]);
  await insert(NO_BOUNDARY.siruta, 1, '3109001', rectWkt(cx - 600, cy + 600, cx - 560, cy + 640));
  await db.query(
    `INSERT INTO gis_uats (siruta, name, county, geom) VALUES ($1, $2, 'Cluj', ST_Multi(ST_GeomFromText($3, 3844)))`,
    [UNSYNCED.siruta, UNSYNCED.name, rectWkt(cx - 3000, cy - 1000, cx - 1000, cy + 1000)],
  );
  await tilesChanged(db, { kind: 'layer', layerId: 'TERENURI_ACTIVE' });
  await tilesChanged(db, { kind: 'uats' });
  return { longCentre: [edgeLon, lat], noBoundaryCentre: [fx.centre[0] - 0.0075, fx.centre[1] + 0.0056] };
}

/** Waits until the map stands still (its `idle` wrote the zoom) and answers its camera. */
const camera = (page: Page) =>
  page.evaluate(() => {
    const m = (window as any).geoportalMap;
    return { zoom: m.getZoom(), lon: m.getCenter().lng, lat: m.getCenter().lat };
  });

const signIn = (page: Page) => signInThroughIdp(page, USER);

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
  let extras: Awaited<ReturnType<typeof plantIssue30>>;

  beforeAll(async () => {
    fx = await plantGeoportalFixtures(getPool(), {
      sirutaBase: SIRUTA_BASE,
      centre: [23.55, 46.74],
      nameA: 'Sânpaul Probă E2E',
      nameB: 'Valea Seacă Probă E2E',
    });
    extras = await plantIssue30(fx);
    browser = await launchChromium(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  });

  afterAll(async () => {
    await browser?.close();
    await getPool().query(`DELETE FROM watchlist WHERE siruta BETWEEN $1 AND $1 + 99`, [SIRUTA_BASE]);
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
  }, 180_000);

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
    // The page follows the address after the hash has changed: wait for the select to show it.
    await page.waitForFunction(() => document.querySelector<HTMLSelectElement>('[data-testid="basemap-select"]')?.value === 'osm');
    await page.goBack();
    await page.waitForFunction(() => Math.abs((window as any).geoportalMap.getZoom() - 16.2) < 1e-6);
    const back = await view();
    expect(back.lat).toBeCloseTo(46.74, 5);
    expect(back.lon).toBeCloseTo(23.55, 5);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);

  test('issue 30: owner search narrowed to a UAT, the panel buttons in view, a building, one label, a UAT without boundary, an unsynced UAT followed', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/geoportal', USER, { viewport: { width: 1440, height: 900 } });
    await page.waitForSelector('[data-testid="geoportal-map"][data-ready="1"]', { timeout: 30_000 });
    const results = page.getByTestId('geoportal-search-results');

    // The owner lives in both UATs; narrowed to Sânpaul, only its parcel is left.
    await page.getByTestId('geoportal-search').fill('stefanescu');
    await results.getByRole('button', { name: /Valea Seacă Probă E2E/ }).first().waitFor({ timeout: 20_000 });
    await page.getByTestId('uat-picker').fill('Sânpaul Probă');
    await page.getByTestId('uat-results').getByRole('option', { name: /Sânpaul Probă E2E/ }).click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="geoportal-search-results"]')?.textContent?.includes('Valea Seacă'), null, { timeout: 20_000 });
    const ownerHits = results.getByRole('button', { name: /ŞTEFĂNESCU ION/ });
    await expect(ownerHits.count()).resolves.toBe(1);
    await expect(ownerHits.first().textContent()).resolves.toContain('Sânpaul Probă E2E');
    await ownerHits.first().click();
    await page.getByTestId('feature-panel-title').filter({ hasText: fx.enriched.cadastralRef }).waitFor({ timeout: 20_000 });

    // CF check, CF order and Follow: in view at 1440×900, each one pill on one line.
    await page.getByTestId('follow-button').filter({ hasText: 'Urmărește parcela' }).waitFor();
    for (const id of ['cf-status-button', 'cf-order-link', 'follow-button']) {
      const box = (await page.getByTestId(id).boundingBox())!;
      expect({ id, inView: box.y >= 0 && box.y + box.height <= 900, oneLine: box.height <= 40 }).toEqual({ id, inView: true, oneLine: true });
    }
    await expect(page.getByTestId('area-layer').textContent()).resolves.toMatch(/m²$/);
    await expect(page.getByTestId('feature-panel').textContent()).resolves.toContain('Suprafață din cartea funciară');
    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: path.join(path.dirname(SCREENSHOT), 'geoportal-panel-1440.png') });

    // A click on the building opens the building, not its parcel.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="geoportal-map"]')?.getAttribute('data-zoom')) >= 16, null, { timeout: 20_000 });
    const at = await buildingPointOf(page, fx.building.id);
    await page.mouse.click(at.x, at.y);
    await page.getByTestId('feature-panel-title').filter({ hasText: `${fx.enriched.cadastralRef}-C1` }).waitFor({ timeout: 15_000 });
    await expect(page.getByTestId('feature-panel-kind').textContent()).resolves.toBe('Clădire');
    await expect(page.getByTestId('building-facts').textContent()).resolves.toContain(`Nr. cadastral ${fx.enriched.cadastralRef}`);
    // Drawn blue (its parcel's BUILD_LEGAL = 1): the panel says the same.
    await expect(page.getByTestId('building-facts').textContent()).resolves.toContain('Construcție cu acteDa');

    // A parcel across a zoom-16 tile edge: two pieces in the tiles, one label on the map.
    await page.evaluate(([lon, lat]) => (window as any).geoportalMap.jumpTo({ center: [lon, lat], zoom: 16.5 }), extras.longCentre);
    const labels = () =>
      page.evaluate((ref) => (window as any).geoportalMap.queryRenderedFeatures({ layers: ['numere-cadastrale'] }).filter((f: any) => f.properties.cadastral_ref === ref).length, LONG_REF);
    await page.waitForFunction(
      (ref) => (window as any).geoportalMap.queryRenderedFeatures({ layers: ['numere-cadastrale'] }).some((f: any) => f.properties.cadastral_ref === ref),
      LONG_REF,
      { timeout: 20_000 },
    );
    const pieces = await page.evaluate(
      (ref) => (window as any).geoportalMap.querySourceFeatures('gis_terenuri_status', { sourceLayer: 'gis_terenuri_status' }).filter((f: any) => f.properties.cadastral_ref === ref).length,
      LONG_REF,
    );
    expect(pieces).toBeGreaterThanOrEqual(2);
    await page.waitForTimeout(500);
    await expect(labels()).resolves.toBe(1);

    // The UAT filter off again; a UAT without boundary: the map goes to its parcels.
    await page.getByRole('button', { name: 'Golește UAT-ul ales' }).click();
    await page.getByTestId('geoportal-search').fill('Sfantu Gheorghe Proba');
    await results.getByRole('button', { name: new RegExp(NO_BOUNDARY.name) }).click();
    await page.getByTestId('uat-card-title').filter({ hasText: NO_BOUNDARY.name }).waitFor({ timeout: 15_000 });
    await page.waitForFunction(
      ([lon, lat]) => {
        const c = (window as any).geoportalMap.getCenter();
        return Math.abs(c.lng - lon) < 0.002 && Math.abs(c.lat - lat) < 0.002;
      },
      extras.noBoundaryCentre,
      { timeout: 15_000 },
    );
    expect((await camera(page)).zoom).toBeGreaterThan(12);
    await expect(page.getByTestId('unsynced-hint').count()).resolves.toBe(0);

    // A UAT without parcels: the hint and its sync link; follow it from the map, then stop.
    await page.getByTestId('geoportal-search').fill('Nesincronizat Proba');
    await results.getByRole('button', { name: new RegExp(UNSYNCED.name) }).click();
    await page.getByTestId('uat-card-title').filter({ hasText: UNSYNCED.name }).waitFor({ timeout: 15_000 });
    await expect(page.getByTestId('unsynced-hint').textContent()).resolves.toContain('UAT-ul nu este sincronizat');
    await expect(page.getByTestId('unsynced-sync-link').getAttribute('href')).resolves.toBe(`/parcel-sync?siruta=${UNSYNCED.siruta}`);
    const follow = page.getByTestId('follow-uat-button');
    await follow.filter({ hasText: 'Urmărește UAT-ul' }).click();
    await follow.filter({ hasText: 'Nu mai urmări UAT-ul' }).waitFor();
    const followed = await getPool().query(`SELECT kind FROM watchlist WHERE siruta = $1`, [UNSYNCED.siruta]);
    expect(followed.rows).toEqual([{ kind: 'uat' }]);
    await page.screenshot({ path: path.join(path.dirname(SCREENSHOT), 'geoportal-uat-card.png') });
    await follow.click();
    await follow.filter({ hasText: 'Urmărește UAT-ul' }).waitFor();
    await expect(getPool().query(`SELECT 1 FROM watchlist WHERE siruta = $1`, [UNSYNCED.siruta]).then((r) => r.rowCount)).resolves.toBe(0);

    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 180_000);

  test('issue 30: a pilot user with the full scope gets owner hits, each with its UAT', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/geoportal', PILOT);
    await page.waitForSelector('[data-testid="geoportal-map"][data-ready="1"]', { timeout: 30_000 });
    await page.getByTestId('geoportal-search').fill('stefanescu');
    const owner = page.getByTestId('geoportal-search-results').getByRole('button', { name: /ŞTEFĂNESCU ION.*Sânpaul Probă E2E/ });
    await owner.first().waitFor({ timeout: 20_000 });
    await expect(owner.first().textContent()).resolves.toContain('Proprietar');
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
