/**
 * External document status (spec 3.5; CONTRACT.md 3 names and colours): what a status page of the
 * municipal authority says, reduced to the part that matters, normalised and hashed. Pure.
 *   - only the status block is read (label and text), never the page around it (dates of the
 *     visit, counters and banners change on every load);
 *   - ş/ţ (cedilla, as old systems write) become ș/ț and whitespace is collapsed before hashing,
 *     so a spelling difference is not a change;
 *   - a page without a status block (an error page served with 200, a maintenance page) is an
 *     error, never a status.
 */
import { createHash } from 'node:crypto';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';

export { FINAL_STATUS_CODES, FINAL_STATUS_WATCH_DAYS, STATUS_CLASS, STATUS_CODES, STATUS_LABEL, type StatusClass, type StatusCode } from './statusNames';
import { STATUS_CLASS, type StatusClass, type StatusCode } from './statusNames';
import { foldDiacritics } from '../text/fold';

/** ş→ș, ţ→ț (both cases), NFC, whitespace collapsed and trimmed. */
export function normaliseStatusText(s: string): string {
  return s
    .normalize('NFC')
    .replace(/ş/g, 'ș')
    .replace(/Ş/g, 'Ș')
    .replace(/ţ/g, 'ț')
    .replace(/Ţ/g, 'Ț')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
}

/** Lower case without diacritics, for recognising a label whatever its spelling. */
function fold(s: string): string {
  return foldDiacritics(normaliseStatusText(s));
}

/** The status code of a label as the authority writes it; null for a label we do not know. */
export function statusCodeOf(label: string): StatusCode | null {
  const f = fold(label);
  if (f.startsWith('inregistrat')) return 'inregistrat';
  if (f.startsWith('in analiza') || f.startsWith('in curs')) return 'in_analiza';
  if (f.startsWith('completari') || f.includes('solicitare completari')) return 'completari';
  if (f.startsWith('aprobat')) return 'aprobat';
  if (f.startsWith('emis') || f.startsWith('eliberat')) return 'emis';
  if (f.startsWith('respins')) return 'respins';
  return null;
}

export interface ExtractedStatus {
  /** Normalised label and text of the status block. */
  label: string;
  text: string;
  code: StatusCode | null;
  statusClass: StatusClass | null;
  petitionerName: string | null;
  /** sha256 of the normalised status part: equal hashes = no change. */
  hash: string;
  /** The page's history table, normalised: [{date, status, text}]. */
  history: Array<{ date: string; status: string; text: string }>;
}

export function statusHash(label: string, text: string): string {
  return createHash('sha256').update(`${normaliseStatusText(label)}\n${normaliseStatusText(text)}`).digest('hex');
}

function byId(root: ReturnType<typeof parseDocument>, id: string): Element | null {
  return DomUtils.findOne((e) => e.attribs?.id === id, root.children, true);
}

function byClass(root: Element, cls: string): Element | null {
  return DomUtils.findOne((e) => (e.attribs?.class ?? '').split(/\s+/).includes(cls), root.children, true);
}

/** Null when the page holds no status block (an error page, whatever its HTTP status). */
export function extractStatus(html: string): ExtractedStatus | null {
  const doc = parseDocument(html);
  const block = byId(doc, 'stare-cerere');
  if (!block) return null;
  const labelEl = byClass(block, 'stare');
  if (!labelEl) return null;
  const label = normaliseStatusText(DomUtils.textContent(labelEl));
  if (!label) return null;
  const textEl = byClass(block, 'detalii');
  const text = textEl ? normaliseStatusText(DomUtils.textContent(textEl)) : '';
  const petEl = byId(doc, 'petent');
  const petitionerName = petEl ? normaliseStatusText(DomUtils.textContent(petEl)) || null : null;
  const history: ExtractedStatus['history'] = [];
  const table = byId(doc, 'istoric');
  if (table) {
    for (const row of DomUtils.findAll((e) => e.name === 'tr', table.children)) {
      const cells = DomUtils.findAll((e) => e.name === 'td', row.children).map((c) => normaliseStatusText(DomUtils.textContent(c)));
      if (cells.length >= 2) history.push({ date: cells[0], status: cells[1], text: cells[2] ?? '' });
    }
  }
  const code = statusCodeOf(label);
  return { label, text, code, statusClass: code ? STATUS_CLASS[code] : null, petitionerName, hash: statusHash(label, text), history };
}
