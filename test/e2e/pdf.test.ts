/**
 * The PDF tools page in the browser (issue 20, UI): Ana signs in through the identity provider,
 * opens /instrumente (which lands on the PDF tab), drops a scanned PDF, picks the cloud
 * "recommended" level, sees both sizes and the saving and downloads the result; then tries to
 * unlock an encrypted PDF with a wrong password (Romanian error) and with the right one (the
 * download is a PDF that is no longer encrypted). Runs against E2E_BASE_URL or the stack.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { projectRoot } from '../../domain/config';
import { E2E_BASE_URL, launchChromium, signInThroughIdp } from '../helpers/e2e';
import { ENCRYPTED_USER_PASSWORD, makePdfCorpus, pdfPageCount, type PdfCorpus } from '../helpers/pdfFixtures';

const USER = { email: 'ana@birou.ro', password: 'parola-ana' };
const SCREENSHOTS = path.join(projectRoot, 'test-results');

const isEncrypted = (file: string) => new Promise<boolean>((resolve) => execFile('qpdf', ['--is-encrypted', file], (err) => resolve(!err)));

describe('PDF tools in the browser', () => {
  let browser: Browser;
  let work: string;
  let corpus: PdfCorpus;

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'pdf-e2e-'));
    corpus = await makePdfCorpus(work);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  test('compress with a cloud level, then unlock with a wrong and the right password', async () => {
    const context = await browser.newContext({ locale: 'ro-RO', viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    // /instrumente lands on the first tool tab, PDF.
    await page.goto(`${E2E_BASE_URL}/instrumente`);
    await signInThroughIdp(page, USER);
    await page.waitForURL(/\/instrumente\/pdf$/);
    await expect(page.getByTestId('tab-pdf').getAttribute('aria-current')).resolves.toBe('page');

    await page.setInputFiles('#pdf-compress-file', corpus.scan);
    await page.getByLabel(/Cloud · recomandat/).check();
    await page.getByTestId('pdf-compress-submit').click();
    const result = page.getByTestId('pdf-compress-result');
    await result.waitFor({ timeout: 60_000 });
    const text = await result.innerText();
    expect(text).toMatch(/Original\s+6,\d+ MB/);
    expect(text).toMatch(/Comprimat\s+\d+(,\d+)? KB/);
    expect(text).toMatch(/Economie\s+9\d(,\d)?%/);
    const [compressed] = await Promise.all([page.waitForEvent('download'), result.getByRole('link', { name: /Descarcă scan-comprimat\.pdf/ }).click()]);
    expect(compressed.suggestedFilename()).toBe('scan-comprimat.pdf');
    const compressedPath = path.join(work, 'downloaded-compressed.pdf');
    await compressed.saveAs(compressedPath);
    expect((await fs.stat(compressedPath)).size).toBeLessThan((await fs.stat(corpus.scan)).size);
    expect(await pdfPageCount(compressedPath)).toBe(1);

    await page.setInputFiles('#pdf-unlock-file', corpus.encrypted);
    await page.getByLabel('Parola PDF-ului').fill('nu-este-parola');
    await page.getByTestId('pdf-unlock-submit').click();
    const alert = page.locator('#pdf-unlock-title').locator('xpath=ancestor::section').getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Parola introdusă nu este corectă');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'pdf-tools.png'), fullPage: true });

    await page.getByLabel('Parola PDF-ului').fill(ENCRYPTED_USER_PASSWORD);
    await page.getByTestId('pdf-unlock-submit').click();
    const unlocked = page.getByTestId('pdf-unlock-result');
    await unlocked.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), unlocked.getByRole('link').click()]);
    expect(download.suggestedFilename()).toBe('encrypted-deblocat.pdf');
    const unlockedPath = path.join(work, 'downloaded-unlocked.pdf');
    await download.saveAs(unlockedPath);
    expect(await isEncrypted(unlockedPath)).toBe(false);
    expect(await pdfPageCount(unlockedPath)).toBe(3);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
