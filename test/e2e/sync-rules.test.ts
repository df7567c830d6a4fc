/**
 * The sync-rules page in the browser (issue 21, Deliver 4): Ana (an administrator: the rules are
 * the office's settings, issue 25) signs in, opens
 * /parcel-sync/reguli from its tab, creates a county rule with a weekend-night window, creates
 * one UAT rule per UAT of the county in bulk, edits the county rule's priority, sees the planted
 * UATs in "what runs next", and deletes the rules. Dan (not an administrator) reads the rules with
 * every change control disabled and the reason in Romanian. Mihai (central API) reads the page and
 * is told plainly why he cannot change the rules (the 410 gate). The rules are `manual` (never due by
 * themselves), on a county planted for the test, so the stack's scheduler starts nothing.
 * Screenshots in test-results/. Runs against E2E_BASE_URL or config.app.publicUrl (the stack).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openSignedIn } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';

const SIRUTA_BASE = 990700;
const COUNTY = `Probă Reguli ${randomUUID().slice(0, 6)}`;
const UATS = [
  { siruta: SIRUTA_BASE + 1, name: 'Ghelința Probă' },
  { siruta: SIRUTA_BASE + 2, name: 'Zagon Probă' },
];
const SCREENSHOTS = path.join(projectRoot, 'test-results');

async function cleanUp(): Promise<void> {
  const db = getPool();
  await db.query(`DELETE FROM gis_sync_rules WHERE county = $1 OR siruta BETWEEN $2 AND $2 + 99`, [COUNTY, SIRUTA_BASE]);
  await db.query(`DELETE FROM gis_uats WHERE siruta BETWEEN $1 AND $1 + 99`, [SIRUTA_BASE]);
}

async function openAs(browser: Browser, user: { email: string; password: string }): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await openSignedIn(browser, '/parcel-sync/reguli', user);
  expect(new URL(page.url()).pathname).toBe('/parcel-sync/reguli');
  return { page, errors };
}

describe('sync rules in the browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    await cleanUp();
    for (const u of UATS) await getPool().query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, $3, 9907)`, [u.siruta, u.name, COUNTY]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await cleanUp();
    await closePool();
  });

  test('create a county rule, bulk-create the UAT rules, edit, see what runs next, delete', async () => {
    const { page, errors } = await openAs(browser, { email: 'ana@birou.ro', password: 'parola-ana' });
    expect(await page.getByTestId('rules-admin-notice').count()).toBe(0);
    await expect(page.getByTestId('tab-rules').getAttribute('aria-current')).resolves.toBe('page');
    await page.getByRole('heading', { name: 'Regulă nouă' }).waitFor();
    page.on('dialog', (d) => void d.accept());

    // A county rule, manual, priority 3, one window Friday to Sunday 23:00–04:00 (the default one offered).
    const form = page.getByTestId('rule-form');
    await form.getByLabel('unui județ', { exact: true }).check();
    await form.locator('select[name="county"]').selectOption(COUNTY);
    await form.locator('select[name="frequency"]').selectOption('manual');
    await form.locator('input[name="priority"]').fill('3');
    await form.getByRole('button', { name: 'Adaugă o fereastră' }).click();
    await form.getByTestId('window-0').getByText('se încheie a doua zi').waitFor();
    await page.getByTestId('rule-submit').click();
    await page.getByTestId('rules-done').filter({ hasText: 'Regula a fost creată.' }).waitFor();
    const countyRow = page.getByTestId('rules-table').locator('tr', { hasText: `Județul ${COUNTY}` });
    await countyRow.waitFor();
    expect(await countyRow.locator('td').allInnerTexts()).toEqual([
      `Județul ${COUNTY}`,
      'manual (doar la cerere)',
      '3',
      'T C N E',
      'V, S, D 23:00–04:00 (a doua zi)',
      '—',
      '—',
      expect.any(String),
    ]);
    const stored = await getPool().query(`SELECT windows, priority FROM gis_sync_rules WHERE county = $1`, [COUNTY]);
    expect(stored.rows[0]).toEqual({ windows: [{ days: [5, 6, 7], start: '23:00', end: '28:00' }], priority: 3 });

    // Bulk: one UAT rule for each UAT of the county, steps T and C only.
    await form.getByLabel('fiecărui UAT dintr-un județ (creare în masă)').check();
    await form.locator('select[name="county"]').selectOption(COUNTY);
    await form.locator('select[name="frequency"]').selectOption('manual');
    for (const s of ['N', 'E']) await form.locator(`input[name="step-${s}"]`).uncheck();
    await page.getByTestId('rule-submit').click();
    await page
      .getByTestId('rules-done')
      .filter({ hasText: `Județul ${COUNTY}: 2 reguli de UAT create.` })
      .waitFor();
    for (const u of UATS)
      await page
        .getByTestId('rules-table')
        .locator('tr', { hasText: `${u.name} (${u.siruta})` })
        .filter({ hasText: 'T C' })
        .waitFor();

    // Edit: the county rule's priority 3 → 2.
    await countyRow.getByRole('button', { name: 'Modifică' }).click();
    await page.getByRole('heading', { name: `Modifică regula: Județul ${COUNTY}` }).waitFor();
    await form.locator('input[name="priority"]').fill('2');
    await page.getByTestId('rule-submit').click();
    await page.getByTestId('rules-done').filter({ hasText: 'Regula a fost modificată.' }).waitFor();
    await expect(countyRow.locator('td').nth(2).innerText()).resolves.toBe('2');

    // What runs next: the planted UATs under their own (manual) rules, never by themselves.
    await page.locator('input[name="upcoming-filter"]').fill(COUNTY);
    for (const u of UATS) {
      const row = page.getByTestId('rules-upcoming').locator('tr', { hasText: `${u.name} (${u.siruta}, ${COUNTY})` });
      await expect(row.locator('td').allInnerTexts()).resolves.toEqual([
        'niciodată singur',
        `${u.name} (${u.siruta}, ${COUNTY})`,
        'regula UAT-ului',
        'manual (doar la cerere)',
        '5',
        'T C',
        '—',
      ]);
    }
    await page.screenshot({ path: path.join(SCREENSHOTS, 'sync-rules.png'), fullPage: true });

    // Delete every rule of the test through the page.
    for (const target of [`Județul ${COUNTY}`, ...UATS.map((u) => `${u.name} (${u.siruta})`)]) {
      await page.getByTestId('rules-table').locator('tr', { hasText: target }).getByRole('button', { name: 'Șterge' }).click();
      await page.getByTestId('rules-done').filter({ hasText: 'Regula a fost ștearsă.' }).waitFor();
      await page.getByTestId('rules-table').locator('tr', { hasText: target }).waitFor({ state: 'detached' });
    }
    expect((await getPool().query(`SELECT 1 FROM gis_sync_rules WHERE county = $1 OR siruta BETWEEN $2 AND $2 + 99`, [COUNTY, SIRUTA_BASE])).rowCount).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);

  test('a user who is not an administrator reads the rules; every change is disabled, with the reason', async () => {
    await getPool().query(
      `INSERT INTO gis_sync_rules (id, scope, county, frequency, priority, windows, steps, enabled) VALUES (gen_random_uuid(), 'county', $1, 'manual', 5, '[]', '{T}', true)`,
      [COUNTY],
    );
    const { page, errors } = await openAs(browser, { email: 'dan@birou.ro', password: 'parola-dan' });
    const notice = page.getByTestId('rules-admin-notice');
    await notice.waitFor();
    await expect(notice.innerText()).resolves.toContain('doar administratorii le pot crea, modifica sau șterge');
    const row = page.getByTestId('rules-table').locator('tr', { hasText: `Județul ${COUNTY}` });
    await row.waitFor();
    await expect(row.getByRole('button', { name: 'Șterge' }).isDisabled()).resolves.toBe(true);
    await expect(row.getByRole('button', { name: 'Modifică' }).isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('rule-submit').isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'sync-rules-not-admin.png'), fullPage: true });
    expect(errors).toEqual([]);
    await getPool().query(`DELETE FROM gis_sync_rules WHERE county = $1`, [COUNTY]);
  }, 120_000);

  test('a central-API user reads the rules and is told why they cannot be changed', async () => {
    const { page, errors } = await openAs(browser, { email: 'mihai@birou.ro', password: 'parola-mihai' });
    await page.getByTestId('rules-central-notice').waitFor();
    await expect(page.getByTestId('rules-central-notice').innerText()).resolves.toContain('folosește API-ul central');
    await expect(page.getByTestId('rule-submit').isDisabled()).resolves.toBe(true);
    // The scheduler view still answers (reads stay open).
    await page.getByRole('heading', { name: 'Ce rulează și când' }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'sync-rules-central.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 120_000);
});
