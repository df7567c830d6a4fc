/**
 * The DWG page in the browser: Dan signs in through the identity provider, opens
 * /instrumente/dwg from the tools tab, drops a real DWG (written by ezdwg), converts it, sees the
 * entity counts and downloads the DXF, which GDAL opens. Runs against E2E_BASE_URL or the stack.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, signInThroughIdp } from '../helpers/e2e';
import { config, projectRoot } from '../../domain/config';
import { drawnCounts, writeDwgFixtures, type Drawing } from '../helpers/dwgFixtures';

const run = promisify(execFile);
const USER = { email: 'dan@birou.ro', password: 'parola-dan' };
const SCREENSHOTS = path.join(projectRoot, 'test-results');

const PLAN: Drawing = {
  name: 'Plan situaţie',
  lines: [[0, 0, 40, 0], [40, 0, 40, 25], [40, 25, 0, 25], [0, 25, 0, 0]],
  circles: [[20, 12, 3]],
  texts: [['Parcela 1234', 2, 2, 1.5], ['Suprafaţă 1000 mp', 2, 22, 1.5]],
  blocks: { BORNA: { lines: [[-1, 0, 1, 0], [0, -1, 0, 1]] } },
  inserts: [['BORNA', 0, 0], ['BORNA', 40, 0], ['BORNA', 40, 25]],
};

describe('DWG → DXF in the browser', () => {
  let browser: Browser;
  let work: string;

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'dwg-e2e-'));
    await writeDwgFixtures(work, [PLAN]);
    await fs.writeFile(path.join(work, 'notite.dwg'), 'nu este un desen\n');
    browser = await launchChromium();
    // Another suite may be proving that the stack restarts a killed sidecar: wait for it to be up.
    for (let i = 0; i < 30; i++) {
      if (await fetch(`${config.dwg.url}/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  test('drop, convert, counts, download; a wrong file shows the Romanian error', async () => {
    const context = await browser.newContext({ locale: 'ro-RO', viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    await page.goto(`${E2E_BASE_URL}/instrumente/dwg`);
    await signInThroughIdp(page, USER);
    expect(new URL(page.url()).pathname).toBe('/instrumente/dwg');
    await expect(page.getByTestId('tab-dwg').getAttribute('aria-current')).resolves.toBe('page');
    expect(await page.getByTestId('dwg-unavailable').count()).toBe(0);

    await page.setInputFiles('#dwg-file', path.join(work, `${PLAN.name}.dwg`));
    await page.getByTestId('dwg-convert').click();
    await page.getByTestId('dwg-result').waitFor({ timeout: 60_000 });
    const drawn = drawnCounts(PLAN);
    const total = Object.values(drawn).reduce((a, b) => a + b, 0);
    expect(await page.getByTestId('dwg-total').textContent()).toBe(String(total));
    const counts = await page.getByTestId('dwg-counts').textContent();
    expect(counts).toContain('Linii (LINE)4');
    expect(counts).toContain('Blocuri inserate (INSERT)3');
    expect(counts).toContain('Texte (TEXT)2');
    expect(counts).toContain('Cercuri (CIRCLE)1');
    await fs.mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dwg-converted.png'), fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('dwg-download').click()]);
    expect(download.suggestedFilename()).toBe(`${PLAN.name}.dxf`);
    const dxf = path.join(work, 'descarcat.dxf');
    await download.saveAs(dxf);
    const { stdout } = await run('ogrinfo', ['-ro', '-so', '-al', dxf]);
    expect(stdout).toMatch(new RegExp(`Feature Count: ${total}\\b`));

    await page.setInputFiles('#dwg-file', path.join(work, 'notite.dwg'));
    await page.getByTestId('dwg-convert').click();
    await page.getByTestId('dwg-error').waitFor();
    expect(await page.getByTestId('dwg-error').textContent()).toContain('Fișierul încărcat nu este un desen DWG.');
    expect(await page.getByTestId('dwg-result').count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dwg-error.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
