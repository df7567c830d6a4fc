/**
 * Every page as the office meets it (issue 42), on a desk (1440x900) and on a phone (390x844), as
 * Ana (administrator) and Elena (a colleague without roles): each page of the navigation is
 * opened and must be no wider than the screen, log no error, leave every input it shows
 * reachable (nothing lying over it) with its placeholder whole in its box, say nothing in the
 * code's words (layer codes, English state names, export modes, server paths) and, by axe-core run
 * in the page, have no serious or critical accessibility violation. Each problem is reported with its page and size, so one run lists
 * them all. The mails in the stack's MailDev (its REST API) are scanned for the same words. Runs against E2E_BASE_URL or config.app.publicUrl (the stack).
 */
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, openSignedIn } from '../helpers/e2e';
import { DESK, PHONE, WALK_PAGES, coveredInputs, cutPlaceholders, internalWords, overflowOf, pageText, settle } from '../helpers/pageWalk';
import type { ReceivedMail } from '../helpers/maildev';
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { notify } from '../../domain/notifications/notify';
import { mailDelivery } from '../../temporal/mail';
import { closeTemporalClient } from '../../temporal/client';
import { until } from '../helpers/wait';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const USERS = {
  ana: { email: 'ana@birou.ro', password: 'parola-ana' },
  elena: { email: 'elena@birou.ro', password: 'parola-elena' },
};

/** axe-core's serious and critical violations on the page, one line each. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
  return found;
}

describe('every page on a desk and on a phone', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);
  });

  afterAll(async () => {
    await browser?.close();
    await getPool().query(`DELETE FROM notifications WHERE idempotency_key LIKE 'e2e:walk:%'`);
    await closePool();
    await closeTemporalClient();
  });


  for (const [who, user] of Object.entries(USERS)) {
    for (const [size, viewport] of Object.entries({ desk: DESK, phone: PHONE })) {
      test(`${who} at ${viewport.width}x${viewport.height}: no overflow, no error, no covered input, no cut placeholder, no internal word, no serious axe violation`, async () => {
        const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/', user, { viewport });
        const problems: string[] = [];
        for (const path of WALK_PAGES) {
          const [seenPage, seenConsole] = [errors.length, consoleErrors.length];
          await page.goto(`${E2E_BASE_URL}${path}`);
          await settle(page);
          const at = `${path} (${size})`;
          const wider = await overflowOf(page);
          if (wider > 0) problems.push(`${at}: ${wider}px wider than the screen`);
          for (const c of await coveredInputs(page)) problems.push(`${at}: ${c}`);
          for (const c of await cutPlaceholders(page)) problems.push(`${at}: placeholder cut ${c}`);
          for (const w of internalWords(await pageText(page))) problems.push(`${at}: ${w}`);
          for (const v of await axeViolations(page)) problems.push(`${at}: axe ${v}`);
          for (const e of [...errors.slice(seenPage), ...consoleErrors.slice(seenConsole)]) problems.push(`${at}: error ${e}`);
        }
        expect(problems).toEqual([]);
        await context.close();
      }, 600_000);
    }
  }

  test("the mails in the stack's MailDev say nothing in the code's words", async () => {
    // Ana has been filed in the users directory by the walk's sign-ins above.
    const ana = await getPool().query<{ id: string }>(`SELECT id FROM app_users WHERE email = $1 AND id NOT LIKE 'test-%' LIMIT 1`, [USERS.ana.email]);
    expect(ana.rows).toHaveLength(1);
    const key = `e2e:walk:${Date.now()}`;
    // An instant mail through the product's template, its outbox and its delivery workflow, as a
    // route sends one (not left to the outbox sweep, which runs every 2 minutes), besides every
    // mail other suites sent.
    await notify(getPool(), mailDelivery, { userId: ana.rows[0].id, type: 'export-ready', title: `Exportul este gata ${key}`, body: 'Arhiva poate fi descărcată.', link: '/parcel-sync/export', idempotencyKey: key, critical: true });
    const mails = async () => (await (await fetch(`${config.mail.webUrl}/api/email`)).json()) as ReceivedMail[];
    await until('the walk mail', async () => (await mails()).some((m) => m.subject.includes(key)), 60_000, 500);
    const problems = (await mails()).flatMap((m) => internalWords(`${m.subject}\n${m.text}\n${m.html.replace(/<[^>]+>/g, ' ')}`).map((w) => `${m.subject}: ${w}`));
    expect(problems).toEqual([]);
  }, 120_000);
});
