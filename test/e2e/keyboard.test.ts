/**
 * Keyboard alone (issue 42, deliverable 4): a person without a mouse signs in through the
 * identity provider's form, tabs to the geoportal's search, types a cadastral number, picks the
 * hit with the arrow keys and Enter, tabs to the panel's "Urmărește parcela" and presses it, opens
 * a UAT's card the same way and downloads its ready QGIS project, then on Acces QGIS fills in and submits the token form, picks a UAT in the ready project's list with
 * the arrow keys and downloads the project with Enter. Only Tab, Shift+Tab, Enter, Space, the
 * arrow keys and typing are used; every element the keyboard lands on on our pages must show
 * where the focus is (an outline or ring), and no page or console error may occur. Beside it, the
 * sync page's picked UAT offers the same project (the map's UAT card is reached above).
 * This file owns SIRUTA 993700-993799.
 */
import type { Browser, Page } from 'playwright-core';
import { E2E_BASE_URL, E2E_ORIGIN, launchChromium, openSignedIn, watchPageErrors } from '../helpers/e2e';
import { closePool, getPool } from '../../domain/db/pool';
import { plantGeoportalFixtures, removeGeoportalFixtures, type GeoportalFixture } from '../helpers/geoportalFixtures';

const SIRUTA_BASE = 993700;
const ANA = { email: 'ana@birou.ro', password: 'parola-ana' };
const TOKEN_NAME = 'Tastatură probă 42';
/** Tab presses allowed to reach a control: more would be a focus order no one can use. */
const MAX_TABS = 60;

interface Focused {
  tag: string;
  label: string;
  testId: string | null;
  /** Whether the focus is drawn: an outline or ring on the element or the box around it. */
  ring: boolean;
  ours: boolean;
}

const focused = (page: Page): Promise<Focused> =>
  page.evaluate((origin) => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: 'body', label: '', testId: null, ring: false, ours: location.origin === origin };
    const drawn = (e: Element) => {
      const s = getComputedStyle(e);
      return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
    };
    // A search box draws its ring on the box around the input (:focus-within).
    const ring = drawn(el) || [el.parentElement, el.parentElement?.parentElement].some((p) => p && p.matches(':focus-within') && getComputedStyle(p).outlineStyle !== 'none');
    const label = (el.getAttribute('aria-label') || el.innerText || (el as HTMLInputElement).name || (el as HTMLInputElement).placeholder || '').trim().slice(0, 60);
    return { tag: el.tagName.toLowerCase(), label, testId: el.getAttribute('data-testid'), ring, ours: location.origin === origin };
  }, E2E_ORIGIN);

/** The stops on our pages where the focus was not drawn (the test expects none at its end). */
const unseen: string[] = [];

/**
 * Presses `key` until the focused element satisfies `want`, noting every stop on our pages that
 * does not show its focus. Fails with the path taken when the control is not reached.
 */
async function tabTo(page: Page, want: (f: Focused) => boolean, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<Focused[]> {
  const path: Focused[] = [];
  for (let i = 0; i < MAX_TABS; i++) {
    await page.keyboard.press(key);
    const f = await focused(page);
    path.push(f);
    const at = `${new URL(page.url()).pathname}: ${f.tag} „${f.label}”`;
    if (f.ours && f.tag !== 'body' && !f.ring && !unseen.includes(at)) unseen.push(at);
    if (want(f)) return path;
  }
  throw new Error(`not reached with ${key}; the focus went: ${path.map((f) => f.label || f.tag).join(' → ')}`);
}

describe('keyboard alone', () => {
  let browser: Browser;
  let fx: GeoportalFixture;

  const cleanUp = async () => {
    const db = getPool();
    await db.query(`DELETE FROM personal_access_tokens WHERE name = $1`, [TOKEN_NAME]);
    await db.query(`DELETE FROM watchlist WHERE feature_id IN (SELECT id FROM gis_features WHERE siruta BETWEEN $1 AND $1 + 99)`, [SIRUTA_BASE]);
    await removeGeoportalFixtures(db, SIRUTA_BASE);
  };

  beforeAll(async () => {
    await cleanUp();
    fx = await plantGeoportalFixtures(getPool(), { sirutaBase: SIRUTA_BASE, centre: [23.9, 47.1], nameA: 'Tastatura Probă', nameB: 'Vecinul Tastaturii', county: 'Bistrița-Năsăud' });
    browser = await launchChromium(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  });

  afterAll(async () => {
    await browser?.close();
    await cleanUp();
    await closePool();
  });

  test('sign in, search, pick, follow the parcel, create a token and download the QGIS project: keyboard only', async () => {
    const context = await browser.newContext({ locale: 'ro-RO', timezoneId: 'Europe/Bucharest', viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const { errors, consoleErrors } = watchPageErrors(page);

    // The identity provider's sign-in form, filled and sent from the keyboard.
    await page.goto(`${E2E_BASE_URL}/geoportal`);
    await page.locator('input[name="username"]').waitFor({ state: 'visible', timeout: 20_000 });
    await tabTo(page, (f) => f.tag === 'input' && f.label === 'username');
    await page.keyboard.type(ANA.email);
    await tabTo(page, (f) => f.tag === 'input' && f.label === 'password');
    await page.keyboard.type(ANA.password);
    await Promise.all([page.waitForURL((u) => u.origin === E2E_ORIGIN && u.pathname === '/geoportal', { timeout: 30_000 }), page.keyboard.press('Enter')]);

    // The map's search: reached with Tab, a query typed, the hit picked with the arrows and Enter.
    const search = page.getByTestId('geoportal-search');
    await search.waitFor();
    await tabTo(page, (f) => f.testId === 'geoportal-search');
    await page.keyboard.type(fx.enriched.cadastralRef);
    const hit = page.getByTestId('geoportal-search-results').getByRole('option').filter({ hasText: fx.enriched.cadastralRef }).first();
    await hit.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await expect(hit.getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('Enter');
    await page.getByTestId('feature-panel-title').filter({ hasText: fx.enriched.cadastralRef }).waitFor();

    // The panel's actions follow the search in the focus order.
    await tabTo(page, (f) => f.testId === 'follow-button' && f.label === 'Urmărește parcela');
    await page.keyboard.press('Space');
    const follow = page.getByTestId('follow-button');
    await follow.filter({ hasText: 'Nu mai urmări parcela' }).waitFor();
    await expect(follow.getAttribute('aria-pressed')).resolves.toBe('true');
    // Shift+Tab goes back the way it came: the search box is behind the panel's actions.
    await tabTo(page, (f) => f.testId === 'geoportal-search', 'Shift+Tab');

    // A UAT's card: its ready QGIS project downloaded with Enter.
    await page.keyboard.press('Control+A');
    await page.keyboard.type(fx.uatA.name);
    const hits = page.getByTestId('geoportal-search-results').getByRole('option');
    // The previous query's hits stay until the new answer replaces them.
    await hits.filter({ has: page.locator('.gp-kind--uat') }).filter({ hasText: fx.uatA.name }).first().waitFor();
    const labels = await hits.allInnerTexts();
    const uatHit = labels.findIndex((l) => l.startsWith('UAT') && l.includes(fx.uatA.name));
    expect(uatHit).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < uatHit; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByTestId('uat-card-title').filter({ hasText: fx.uatA.name }).waitFor();
    await tabTo(page, (f) => f.testId === 'qgis-project-link');
    const [fromCard] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(fromCard.suggestedFilename()).toBe(`tastatura-proba-${fx.uatA.siruta}_proiect-qgis.qgz`);

    // A form of ours: a personal token, named and created from the keyboard.
    await page.goto(`${E2E_BASE_URL}/instrumente/qgis`);
    await page.getByTestId('token-name').waitFor();
    await tabTo(page, (f) => f.testId === 'token-name');
    await page.keyboard.type(TOKEN_NAME);
    await tabTo(page, (f) => f.testId === 'token-create');
    await page.keyboard.press('Enter');
    await page.getByTestId('token-secret-box').waitFor();
    await page.getByTestId('tokens-table').getByText(TOKEN_NAME).waitFor();

    // The ready project: a UAT chosen with the arrow keys, the download started with Enter.
    await tabTo(page, (f) => f.testId === 'qgis-project-uat');
    const options = await page.getByTestId('qgis-project-uat').locator('option').allInnerTexts();
    const index = options.findIndex((o) => o.includes(fx.uatA.name));
    expect(index).toBeGreaterThan(0);
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    await expect(page.getByTestId('qgis-project-uat').inputValue()).resolves.toBe(String(fx.uatA.siruta));
    await tabTo(page, (f) => f.testId === 'qgis-project-link');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toBe(`tastatura-proba-${fx.uatA.siruta}_proiect-qgis.qgz`);

    expect(unseen).toEqual([]);
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 240_000);

  test('the sync page offers the picked UAT’s QGIS project once the store holds its parcels', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, `/parcel-sync?siruta=${fx.uatA.siruta}`, ANA);
    await page.getByTestId('uat-picked').filter({ hasText: fx.uatA.name }).waitFor();
    const link = page.getByTestId('qgis-project-link');
    await expect(link.getAttribute('href')).resolves.toBe(`/api/qgis/project?siruta=${fx.uatA.siruta}`);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe(`tastatura-proba-${fx.uatA.siruta}_proiect-qgis.qgz`);
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 180_000);
});
