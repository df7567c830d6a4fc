/**
 * The AI assistant in a browser (issue 30), browser on Romanian time, any page or console error
 * failing the test: Dan sees the provider and a project list of projects only (no stray "0"),
 * picks a project, asks a question and reads the streamed answer, finds the conversation again
 * after a reload, and starts a new one. Against the stack's AI simulator.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, openSignedIn } from '../helpers/e2e';
import { closePool } from '../../domain/db/pool';
import { getPrisma } from '../../domain/db/prisma';
import { addTag } from '../../domain/tags/tags';

const DAN = { email: 'dan@birou.ro', password: 'parola-dan' };

describe('AI assistant in the browser', () => {
  let browser: Browser;
  let tagId: string | undefined;
  const project = `U-${String(Date.now() % 10_000).padStart(4, '0')} Casa Probă ${randomUUID().slice(0, 6)}`;

  beforeAll(async () => {
    tagId = (await addTag(getPrisma(), { project, company: 'U' })).id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (tagId) await getPrisma().tag.deleteMany({ where: { id: tagId } });
    await closePool();
  });

  test('pick a project, ask, read the answer, keep it across a reload, start again', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/instrumente/asistent', DAN);
    await page.getByTestId('ai-provider').waitFor();

    // The project list: "Fără proiect" and project names, nothing else.
    const select = page.getByTestId('ai-project');
    const options = await select.locator('option').allInnerTexts();
    expect(options[0]).toBe('Fără proiect');
    expect(options).toContain(project);
    for (const o of options) expect(o.trim()).not.toMatch(/^\d*$/);
    const bar = await page.locator('.assistant__bar').innerText();
    expect(bar).not.toMatch(/(^|\s)0(\s|$)/);

    await select.selectOption({ label: project });
    const input = page.getByTestId('ai-input');
    await input.fill('Ce documente trebuie pentru certificatul de urbanism?');
    await input.press('Enter');
    const answer = page.locator('.assistant__msg--assistant').last();
    await answer.locator('.assistant__who').filter({ hasText: 'Asistent ·' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Trimite' }).waitFor({ timeout: 30_000 });
    const text = (await answer.locator('p').innerText()).trim();
    expect(text.length).toBeGreaterThan(10);
    expect(text).not.toBe('Se scrie răspunsul…');
    await page.screenshot({ path: 'test-results/e2e-assistant.png', fullPage: true });

    // The conversation and the project stay for the visit.
    await page.goto(`${E2E_BASE_URL}/instrumente/asistent`, { waitUntil: 'networkidle' });
    await page.locator('.assistant__msg--user').filter({ hasText: 'certificatul de urbanism' }).waitFor();
    await expect(select.inputValue()).resolves.toBe(tagId);

    await page.getByRole('button', { name: 'Conversație nouă' }).click();
    await page.locator('.assistant__empty').waitFor();
    await expect(page.locator('.assistant__msg').count()).resolves.toBe(0);

    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
