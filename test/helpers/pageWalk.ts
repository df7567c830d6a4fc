/**
 * What a person walking a page would notice (issue 42), read from the page in the browser: a page
 * wider than the screen, an input something else lies over, a placeholder cut by its box, and
 * internal words (layer codes, English state names, server paths) in its text.
 */
import type { Page } from 'playwright-core';

/** Every page of the product a signed-in user can open from the navigation. */
export const WALK_PAGES = [
  '/',
  '/geoportal',
  '/parcel-sync',
  '/parcel-sync?tab=search',
  '/parcel-sync?tab=epay',
  '/parcel-sync/dashboard',
  '/parcel-sync/export',
  '/parcel-sync/reguli',
  '/parcel-sync/weekend',
  '/registratura',
  '/rgi',
  '/utilitare',
  '/instrumente/pdf',
  '/instrumente/dwg',
  '/instrumente/asistent',
  '/instrumente/qgis',
  '/infrastructura-harti',
  '/notificari',
  '/notificari/preferinte',
] as const;

export const PHONE = { width: 390, height: 844 };
export const DESK = { width: 1440, height: 900 };

/** The document's width beyond the screen's, in CSS pixels (0 when it fits). */
export function overflowOf(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));
}

/**
 * The inputs a user can see but not reach: scrolled into view, the element on top at the input's
 * centre is neither the input nor its label. Visually hidden inputs (styled radios, file inputs
 * behind a drop zone) are skipped: their label is the control.
 */
export async function coveredInputs(page: Page): Promise<string[]> {
  const inputs = page.locator('input:not([type="hidden"]):not([type="file"]), select, textarea');
  const out: string[] = [];
  const n = await inputs.count();
  for (let i = 0; i < n; i++) {
    const input = inputs.nth(i);
    if (!(await input.isVisible())) continue;
    await input.scrollIntoViewIfNeeded().catch(() => undefined);
    const covered = await input.evaluate((el) => {
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      if (style.opacity === '0' || style.visibility === 'hidden' || box.width < 4 || box.height < 4) return null;
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      if (x < 0 || y < 0 || x > window.innerWidth || y > window.innerHeight) return null;
      const top = document.elementFromPoint(x, y);
      if (!top || top === el || el.contains(top)) return null;
      const labels = [...((el as HTMLInputElement).labels ?? [])];
      if (labels.some((l) => l.contains(top))) return null;
      const name = el.getAttribute('aria-label') ?? labels[0]?.textContent?.trim() ?? el.getAttribute('name') ?? el.tagName.toLowerCase();
      const by = `${top.tagName.toLowerCase()}${top.className && typeof top.className === 'string' ? `.${top.className.split(' ')[0]}` : ''}`;
      return `„${name}” acoperit de ${by}`;
    });
    if (covered) out.push(covered);
  }
  return out;
}

/**
 * The empty inputs whose placeholder does not fit their box: the end of the hint is cut off (the
 * placeholder's drawn width, in the input's own font, against the box's width inside its padding).
 */
export function cutPlaceholders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const pen = document.createElement('canvas').getContext('2d')!;
    const textual = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number']);
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLInputElement>('input[placeholder]')) {
      if (el.value || !textual.has(el.getAttribute('type') ?? '') || !el.checkVisibility()) continue;
      const s = getComputedStyle(el);
      pen.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const spacing = parseFloat(s.letterSpacing) || 0;
      const need = pen.measureText(el.placeholder).width + spacing * el.placeholder.length;
      const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
      if (need > room + 1) out.push(`„${el.placeholder}” (${Math.ceil(need)} px în ${Math.floor(room)} px)`);
    }
    return out;
  });
}

/** Words of the code, not of the office: the store's layer codes, English job states, server paths. */
const INTERNAL = [
  { what: 'layer code', re: /\b(?:TERENURI|CLADIRI|LIMITE)_[A-Z_]+\b/g },
  { what: 'English state', re: /\b(?:pending|processing|running|queued|completed|cancelled|failed|waiting_window|sync_terenuri|sync_cladiri|import_nogeom|enrich)\b/g },
  { what: 'export mode', re: /\bmagic\b/gi },
  { what: 'server path', re: /(?:\/(?:work|root|tmp|var|home|srv|opt)\/[\w.-]+|\.data\/|docs\/[\w-]+\.md)/g },
];

/** The internal words in a text, each with its kind ("layer code: TERENURI_ACTIVE"). */
export function internalWords(text: string): string[] {
  return INTERNAL.flatMap(({ what, re }) => [...text.matchAll(re)].map((m) => `${what}: ${m[0]}`));
}

/** The page's visible text and the texts a screen reader or a tooltip gives (titles, labels, placeholders). */
export function pageText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const attrs = [...document.querySelectorAll('[title], [aria-label], [placeholder]')].flatMap((el) =>
      ['title', 'aria-label', 'placeholder'].map((a) => el.getAttribute(a) ?? ''),
    );
    return [document.body.innerText, ...attrs].join('\n');
  });
}

/** Settles a page: loaded, its first data requests answered (pages poll, so never "network idle" for long). */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  await page.waitForLoadState('networkidle', { timeout: 4000 }).catch(() => undefined);
}
