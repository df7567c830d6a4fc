/**
 * The office utilities page (/utilitare) in the browser, as a user edits what is there (issue 30):
 * Ana (an administrator of company B) adds a project tag with a phase, renames the project and
 * moves it to company U from the tree; adds a vault entry, is told in Romanian that a
 * `javascript:` address is refused, edits the entry's notes, address and password and reads the
 * new password; adds a contact spelled with diacritics, finds it typed without them, edits its
 * phone and company; the page shows her company's storage against its quota. The browser is on Romania's time zone and the page may log no error. Every
 * name carries a tag of the run, and the rows are removed after. Screenshots in test-results/.
 * Runs against E2E_BASE_URL or config.app.publicUrl (the stack).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openSignedIn } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';

const RUN = randomUUID().slice(0, 6);
const CODE = `B-9${String(parseInt(RUN, 16) % 1000).padStart(3, '0')}`;
const PROJECT = `${CODE} Probă ${RUN}`;
const RENAMED = `${CODE} Probă redenumită ${RUN}`;
const ENTRY = `Seif probă ${RUN}`;
const CONTACT = `Ștefănescu Probă ${RUN}`;
const SCREENSHOTS = path.join(projectRoot, 'test-results');
const ANA = { email: 'ana@birou.ro', password: 'parola-ana' };

async function cleanUp(): Promise<void> {
  const db = getPool();
  await db.query(`DELETE FROM tags WHERE project_code = $1 OR path LIKE $2`, [CODE, `%${RUN}%`]);
  await db.query(`DELETE FROM vault_access_log WHERE entry_name LIKE $1`, [`%${RUN}%`]);
  await db.query(`DELETE FROM vault_entries WHERE name LIKE $1`, [`%${RUN}%`]);
  await db.query(`DELETE FROM contacts WHERE name LIKE $1`, [`%${RUN}%`]);
}

describe('office utilities in the browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    await cleanUp();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await cleanUp();
    await closePool();
  });

  test('tags, vault and address book: add, then edit each as a user does', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/utilitare?tab=etichete', ANA);
    expect(new URL(page.url()).pathname).toBe('/utilitare');
    page.on('dialog', (d) => void d.accept());
    // Her company's storage against its quota (CONTRACT.md 6).
    await expect(page.getByTestId('storage-usage').textContent()).resolves.toMatch(/^Spațiu folosit: [\d,]+ (B|KB|MB|GB) din 1 GB$/);

    // Tags: a project with a phase, then the project renamed and moved to company U.
    await page.getByLabel('Proiect', { exact: true }).fill(PROJECT);
    await page.getByRole('button', { name: 'Adaugă', exact: true }).click();
    await page.getByText('Eticheta a fost adăugată.').waitFor();
    await page.getByLabel('Fază', { exact: true }).fill('Releveu');
    await page.getByRole('button', { name: 'Adaugă', exact: true }).click();
    const tree = page.locator('.office-tree');
    const projectItem = (name: string) => tree.locator('li', { has: page.getByText(name, { exact: true }) });
    await projectItem(PROJECT).getByText('Releveu').first().waitFor();
    await page.getByRole('button', { name: `Modifică ${PROJECT}`, exact: true }).click();
    const edit = page.getByTestId('tag-edit');
    await edit.getByLabel('Proiect', { exact: true }).fill(RENAMED);
    await edit.getByLabel('Firmă', { exact: true }).selectOption('U');
    await edit.getByRole('button', { name: 'Salvează' }).click();
    await page.getByText('Eticheta și cele de sub ea au fost modificate.').waitFor();
    const renamedItem = projectItem(RENAMED);
    await renamedItem.getByText('· firma U').waitFor();
    await renamedItem.getByText('Releveu').first().waitFor();
    expect(await tree.getByText(PROJECT, { exact: true }).count()).toBe(0);
    const tags = await getPool().query<{ path: string; company: string }>(`SELECT path, company FROM tags WHERE project_code = $1 ORDER BY path`, [CODE]);
    expect(tags.rows).toEqual([
      { path: RENAMED, company: 'U' },
      { path: `${RENAMED}, Releveu`, company: 'U' },
    ]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'office-tags.png'), fullPage: true });

    // Vault: add an entry, a javascript: address refused in Romanian, then every field edited.
    await page.getByRole('button', { name: 'Seif de parole', exact: true }).click();
    const form = page.getByTestId('vault-form');
    await form.getByLabel('Nume', { exact: true }).fill(ENTRY);
    await form.getByLabel('Utilizator', { exact: true }).fill('birou.b');
    await form.getByLabel('Adresă', { exact: true }).fill('https://portal.example.ro');
    await form.getByLabel('Parolă', { exact: true }).fill('prima-parolă');
    await form.getByRole('button', { name: 'Adaugă' }).click();
    await page.getByText('Intrarea a fost salvată.').waitFor();
    const row = page.getByTestId('vault-table').locator('tr', { hasText: ENTRY });
    await row.getByRole('button', { name: 'Modifică' }).click();
    await page.getByRole('heading', { name: `Modifică intrarea „${ENTRY}”` }).waitFor();
    await expect(form.getByLabel('Utilizator', { exact: true }).inputValue()).resolves.toBe('birou.b');
    await form.getByLabel('Adresă', { exact: true }).fill('javascript:alert(1)');
    await form.getByRole('button', { name: 'Salvează' }).click();
    await page.getByText('Adresa trebuie să fie un URL http:// sau https://.').waitFor();
    await form.getByLabel('Adresă', { exact: true }).fill('https://portal-nou.example.ro');
    await form.getByLabel('Note', { exact: true }).fill('Parolă schimbată în noiembrie');
    await form.getByLabel('Parolă', { exact: true }).fill('a-doua-parolă');
    await form.getByRole('button', { name: 'Salvează' }).click();
    await page.getByText('Intrarea a fost modificată.').waitFor();
    await row.getByText('Parolă schimbată în noiembrie').waitFor();
    await row.getByRole('link', { name: 'https://portal-nou.example.ro' }).waitFor();
    await row.getByRole('button', { name: 'Arată' }).click();
    await row.locator('code').filter({ hasText: 'a-doua-parolă' }).waitFor();
    const stored = await getPool().query<{ url: string; notes: string; password: string; username: string }>(
      `SELECT url, notes, password, username FROM vault_entries WHERE name = $1`,
      [ENTRY],
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]).toMatchObject({ url: 'https://portal-nou.example.ro', notes: 'Parolă schimbată în noiembrie', username: 'birou.b' });
    expect(stored.rows[0].password).toMatch(/^v1:/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'office-vault.png'), fullPage: true });

    // Address book: a contact with diacritics, found typed without them, then edited.
    await page.getByRole('button', { name: 'Agendă', exact: true }).click();
    const contactForm = page.getByTestId('contact-form');
    await contactForm.getByLabel('Nume', { exact: true }).fill(CONTACT);
    await contactForm.getByLabel('Firmă', { exact: true }).selectOption('S');
    await contactForm.getByLabel('Telefon', { exact: true }).fill('0721 000 111');
    await contactForm.getByRole('button', { name: 'Adaugă' }).click();
    await page.getByText('Contactul a fost adăugat.').waitFor();
    await page.getByLabel('Caută nume, organizație, e-mail…', { exact: true }).fill(`stefanescu proba ${RUN}`);
    const contacts = page.getByTestId('contacts-table');
    const contactRow = contacts.locator('tr', { hasText: CONTACT });
    await contactRow.waitFor();
    await expect(contacts.locator('tbody tr').count()).resolves.toBe(1);
    await contactRow.getByRole('button', { name: 'Editează' }).click();
    await page.getByRole('heading', { name: 'Editează contactul' }).waitFor();
    await contactForm.getByLabel('Telefon', { exact: true }).fill('0721 222 333');
    await contactForm.getByLabel('Firmă', { exact: true }).selectOption('U');
    await contactForm.getByRole('button', { name: 'Salvează' }).click();
    await page.getByText('Contactul a fost actualizat.').waitFor();
    // The message shows when the API answers; the list follows once the page's data is read again.
    await contactRow.filter({ hasText: '0721 222 333' }).waitFor();
    await expect(contactRow.locator('td').allInnerTexts()).resolves.toEqual([CONTACT, 'Persoană', 'U', '', '', '0721 222 333', expect.stringContaining('Editează')]);
    const contact = await getPool().query(`SELECT phone, company FROM contacts WHERE name = $1`, [CONTACT]);
    expect(contact.rows).toEqual([{ phone: '0721 222 333', company: 'U' }]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'office-agenda.png'), fullPage: true });

    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 180_000);

  test('a user who is not an administrator sees no change link in the tag tree, and why', async () => {
    await getPool().query(`INSERT INTO tags (path, category, project, project_code, company) VALUES ($1, 'project', $1, $2, 'B') ON CONFLICT (path) DO NOTHING`, [PROJECT, CODE]);
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/utilitare?tab=etichete', { email: 'dan@birou.ro', password: 'parola-dan' });
    await page.locator('.office-tree').getByText(PROJECT, { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: `Modifică ${PROJECT}`, exact: true }).count()).toBe(0);
    await expect(page.getByTestId('tags-admin-only').innerText()).resolves.toContain('doar administratorii îl pot rescrie și pot modifica sau șterge etichete');
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
