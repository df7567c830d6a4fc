/**
 * Notifications end to end in the browser (issue 18, UI): Ana signs in through the identity
 * provider (which files her in the users directory), turns instant e-mails off on the preferences
 * page, sees the bell count two new notifications, reads them on /notificari, opens a parcel from
 * a notification link, follows it from the feature panel and sees its change timeline after the
 * owners change. Runs against E2E_BASE_URL or config.app.publicUrl (the stack).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, openSignedIn } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { writeEnrichment } from '../../domain/enrichment/store';
import { notify } from '../../domain/notifications/notify';
import { plantGeoportalFixtures, removeGeoportalFixtures, type GeoportalFixture } from '../helpers/geoportalFixtures';

const BASE_URL = E2E_BASE_URL;
const SIRUTA_BASE = 990500;
const USER = { email: 'ana@birou.ro', password: 'parola-ana' };
const tag = randomUUID().slice(0, 8);
const SCREENSHOTS = path.join(projectRoot, 'test-results');

describe('notifications in the browser', () => {
  let browser: Browser;
  let fx: GeoportalFixture;
  let userId: string | undefined;

  beforeAll(async () => {
    fx = await plantGeoportalFixtures(getPool(), { sirutaBase: SIRUTA_BASE, centre: [23.6, 46.77], nameA: 'Florești Probă Notificări', nameB: 'Gilău Probă Notificări' });
    browser = await launchChromium(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  });

  afterAll(async () => {
    await browser?.close();
    const db = getPool();
    if (userId) {
      await db.query(`DELETE FROM notifications WHERE user_id = $1 AND (idempotency_key LIKE $2 OR type = 'watch-change')`, [userId, `e2e:${tag}:%`]);
      await db.query(`DELETE FROM watchlist WHERE user_id = $1 AND siruta BETWEEN $2 AND $2 + 99`, [userId, SIRUTA_BASE]);
      await db.query(`UPDATE notification_preferences SET instant_email = true, backup_failed = true WHERE user_id = $1`, [userId]);
    }
    await db.query(`DELETE FROM feature_changes WHERE siruta BETWEEN $1 AND $1 + 99`, [SIRUTA_BASE]);
    await removeGeoportalFixtures(db, SIRUTA_BASE);
    await closePool();
  });

  test('bell, inbox, preferences, follow button and change timeline', async () => {
    const { context, page, errors: pageErrors, consoleErrors } = await openSignedIn(browser, '/notificari/preferinte', USER, { viewport: { width: 1366, height: 860 } });
    expect(new URL(page.url()).pathname).toBe('/notificari/preferinte');
    // The sign-in filed Ana in the users directory, with her IdP subject as id.
    // (Other suites file test users under the same address with `test-` ids: the IdP's is `usr-<localpart>`.)
    const dir = await getPool().query<{ id: string; company: string; is_admin: boolean }>(
      `SELECT id, company, is_admin FROM app_users WHERE email = $1 AND id NOT LIKE 'test-%'`,
      [USER.email],
    );
    expect(dir.rows).toHaveLength(1);
    expect(dir.rows[0]).toMatchObject({ company: 'B', is_admin: true });
    userId = dir.rows[0].id;

    // Instant e-mails off: the test's notifications stay in the app (and the digest).
    const instant = page.getByTestId('pref-instantEmail');
    if (await instant.isChecked()) await instant.uncheck();
    await page.getByRole('status').filter({ hasText: 'Preferințele au fost salvate.' }).waitFor();
    const prefs = await getPool().query(`SELECT instant_email FROM notification_preferences WHERE user_id = $1`, [userId]);
    expect(prefs.rows[0].instant_email).toBe(false);
    // Her inbox counts this test's notifications only: the backup alerts that other suites raise for
    // every administrator meanwhile (admin-backups.test.ts) are switched off for her here.
    await getPool().query(`UPDATE notification_preferences SET backup_failed = false WHERE user_id = $1`, [userId]);

    await page.evaluate(() => fetch('/api/notifications/app', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ all: true }) }));
    for (const i of [1, 2]) {
      await notify(getPool(), null, {
        userId,
        type: 'cf-extract-ready',
        title: `Extrasul CF ${i} pentru Florești este gata`,
        body: 'Documentul poate fi descărcat din geoportal.',
        link: `/geoportal?feature=${fx.enriched.id}`,
        idempotencyKey: `e2e:${tag}:${i}`,
      });
    }
    await page.goto(`${BASE_URL}/notificari`);
    await expect(page.getByTestId('notification-count').textContent()).resolves.toBe('2');
    const items = page.getByTestId('notification');
    await expect(items.first().textContent()).resolves.toContain('Extrasul CF 2 pentru Florești este gata');
    await expect(page.getByTestId('unread-summary').textContent()).resolves.toBe('2 notificări necitite.');
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'notifications-inbox.png') });
    await page.getByTestId('mark-all-read').click();
    await page.getByTestId('unread-summary').filter({ hasText: 'Nicio notificare necitită.' }).waitFor();
    await page.getByTestId('notification-count').waitFor({ state: 'detached' });

    // The notification's link opens the parcel's panel; follow it from there.
    await page.getByRole('link', { name: 'Extrasul CF 1 pentru Florești este gata' }).click();
    await page.waitForURL((u) => u.pathname === '/geoportal');
    await page.getByTestId('feature-panel-title').filter({ hasText: fx.enriched.cadastralRef }).waitFor({ timeout: 30_000 });
    // Every parcel has a timeline, followed or not: this one has seen no change yet.
    await page.getByTestId('change-timeline-empty').filter({ hasText: 'Nicio modificare' }).waitFor();
    const followButton = page.getByTestId('follow-button');
    await followButton.filter({ hasText: 'Urmărește parcela' }).waitFor();
    await followButton.click();
    await followButton.filter({ hasText: 'Nu mai urmări parcela' }).waitFor();
    const watch = await getPool().query(`SELECT kind, feature_id FROM watchlist WHERE user_id = $1 AND feature_id = $2`, [userId, fx.enriched.id]);
    expect(watch.rows).toEqual([{ kind: 'parcel', feature_id: fx.enriched.id }]);

    // New owners reach the store: the timeline shows them, and the bell counts the change.
    const current = await getPool().query<{ enrichment: Record<string, unknown> }>(`SELECT enrichment FROM gis_features WHERE id = $1`, [fx.enriched.id]);
    await writeEnrichment(getPool(), null, fx.enriched.id, { ...current.rows[0].enrichment, PROPRIETARI: 'MUREȘAN ȘTEFAN (1/1)' } as never, new Date());
    await page.reload();
    await page.getByTestId('change-timeline').waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('change-timeline').textContent()).resolves.toContain('Proprietari');
    await expect(page.getByTestId('change-timeline').textContent()).resolves.toContain('MUREȘAN ȘTEFAN (1/1)');
    await expect(page.getByTestId('change-timeline').textContent()).resolves.toContain('îmbogățire');
    await expect(page.getByTestId('notification-count').textContent()).resolves.toBe('1');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'notifications-panel.png') });
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 180_000);
});
