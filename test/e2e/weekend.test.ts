/**
 * The weekend deep sync page in the browser (spec 3.4, issue 21): Ana (an administrator: the queue
 * is the office's setting, issue 25) signs in, opens
 * /parcel-sync/weekend from its tab, pauses the session, adds a planted UAT by its name with the
 * UAT picker (without diacritics, as one types) and sees it queued with its four steps pending,
 * finds nothing to add for an unknown SIRUTA, removes the city and resumes. The browser is on
 * Romania's time zone and the page may log no error. The session is paused first, so even inside a weekend window the stack's
 * session never picks the planted city up. Screenshot in test-results/. Runs against
 * E2E_BASE_URL or config.app.publicUrl (the stack).
 */
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openSignedIn } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';

const UAT = { siruta: 990_851, name: 'Întorsura Probă' };
const UNKNOWN_SIRUTA = 990_899;
const SCREENSHOTS = path.join(projectRoot, 'test-results');

async function cleanUp(): Promise<void> {
  const db = getPool();
  await db.query(`DELETE FROM weekend_sync_queue WHERE siruta BETWEEN 990850 AND 990899`);
  await db.query(`DELETE FROM gis_uats WHERE siruta BETWEEN 990850 AND 990899`);
}

describe('weekend sync page in the browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    await cleanUp();
    await getPool().query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Probă Weekend', 9908)`, [UAT.siruta, UAT.name]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await cleanUp();
    await closePool();
  });

  test('pause, add a city by name, see its steps pending, an unknown SIRUTA finds nothing, remove, resume', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/parcel-sync/weekend', { email: 'ana@birou.ro', password: 'parola-ana' });
    expect(new URL(page.url()).pathname).toBe('/parcel-sync/weekend');

    const state = page.getByTestId('weekend-state');
    await state.waitFor();
    await expect(state.innerText()).resolves.toMatch(/Fereastra de weekend este (deschisă|închisă)\./);
    // The next window shown is an ordinary one, Romanian time: 23:00 (never the forced 22:00).
    await expect(state.innerText()).resolves.toMatch(/Următoarea fereastră începe (vineri|sâmbătă|duminică), \d{1,2} \S+ \d{4} la 23:00\./);

    // Pause first: from here on nothing of the queue runs, whatever the day and hour.
    await page.getByRole('button', { name: 'Pauză', exact: true }).click();
    await state.getByText('Sesiune: în pauză').waitFor();
    await page.getByRole('button', { name: 'Reia', exact: true }).waitFor();

    // A planted city by its name, typed without diacritics: picked from the list, queued with its four steps pending.
    const picker = page.getByLabel('Localitate de adăugat');
    const add = page.getByRole('button', { name: 'Adaugă în coadă' });
    await expect(add.isDisabled()).resolves.toBe(true);
    await picker.fill('intorsura proba');
    await page.getByRole('option', { name: new RegExp(`${UAT.name}.*SIRUTA ${UAT.siruta}`) }).click();
    await add.click();
    const row = page.getByTestId('weekend-queue').locator('tr', { hasText: `${UAT.name} (${UAT.siruta})` });
    await row.waitFor();
    await expect(row.locator('td').allInnerTexts()).resolves.toEqual([
      `${UAT.name} (${UAT.siruta})`,
      'în așteptare',
      'în așteptare',
      'în așteptare',
      'în așteptare',
      expect.stringContaining('Elimină'),
    ]);
    await expect(picker.inputValue()).resolves.toBe('');
    const stored = await getPool().query(`SELECT name FROM weekend_sync_queue WHERE siruta = $1`, [UAT.siruta]);
    expect(stored.rows).toEqual([{ name: UAT.name }]);

    // A SIRUTA the catalogue does not know: nothing to pick, nothing to add.
    await picker.fill(String(UNKNOWN_SIRUTA));
    await page.getByTestId('uat-results').getByText(`Niciun UAT găsit pentru „${UNKNOWN_SIRUTA}”.`).waitFor();
    await expect(add.isDisabled()).resolves.toBe(true);
    expect((await getPool().query(`SELECT 1 FROM weekend_sync_queue WHERE siruta = $1`, [UNKNOWN_SIRUTA])).rowCount).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'weekend.png'), fullPage: true });

    // Remove the city, then resume the session as it was.
    await row.getByRole('button', { name: 'Elimină' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await getPool().query(`SELECT 1 FROM weekend_sync_queue WHERE siruta = $1`, [UAT.siruta])).rowCount).toBe(0);
    await page.getByRole('button', { name: 'Reia', exact: true }).click();
    await page.getByRole('button', { name: 'Pauză', exact: true }).waitFor();
    await expect(state.innerText()).resolves.not.toContain('în pauză');
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);

  test('a user who is not an administrator sees the queue with every control disabled, and why', async () => {
    const { context, page, errors } = await openSignedIn(browser, '/parcel-sync/weekend', { email: 'dan@birou.ro', password: 'parola-dan' });
    await page.getByTestId('weekend-state').waitFor();
    await expect(page.getByTestId('weekend-admin-notice').innerText()).resolves.toContain('doar administratorii pot adăuga sau elimina localități');
    for (const name of ['Pornește acum', 'Adaugă în coadă']) {
      await expect(page.getByRole('button', { name, exact: true }).isDisabled()).resolves.toBe(true);
    }
    const pauseOrResume = page.getByTestId('weekend-state').getByRole('button', { name: /^(Pauză|Reia)$/ });
    await expect(pauseOrResume.isDisabled()).resolves.toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
