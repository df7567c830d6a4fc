/**
 * The tag file as text (CONTRACT.md section 3): parsed into lines that remember their exact bytes,
 * so a rewrite changes only the lines a sync changes and keeps the encoding (UTF-8, with or
 * without BOM, or UTF-16LE with BOM as Windows tools write it), the line ending, the final newline,
 * comments, blank lines and the order of everything else. Pure.
 */
import { parseTagLine, type TagPath } from './tagPath';
import { tagKey } from './merge';

export type TagFileEncoding = 'utf8' | 'utf8-bom' | 'utf16le-bom';

export interface TagFileLine {
  raw: string;
  /** null: blank, comment or not a tag path (kept as written). */
  tag: TagPath | null;
}

export interface TagFileDoc {
  encoding: TagFileEncoding;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
  lines: TagFileLine[];
}

export class TagFileEncodingError extends Error {}

export function emptyTagFile(): TagFileDoc {
  return { encoding: 'utf8', eol: '\n', finalNewline: true, lines: [] };
}

export function parseTagFile(buf: Buffer): TagFileDoc {
  let encoding: TagFileEncoding = 'utf8';
  let text: string;
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
    encoding = 'utf16le-bom';
    text = buf.subarray(2).toString('utf16le');
  } else {
    let body = buf;
    if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      encoding = 'utf8-bom';
      body = buf.subarray(3);
    }
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      // Rewriting bytes we cannot read would lose them: refuse instead.
      throw new TagFileEncodingError('The tag file is not valid UTF-8');
    }
  }
  if (text === '') return { ...emptyTagFile(), encoding };
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = text.endsWith('\n');
  const parts = text.split(/\r?\n/);
  if (finalNewline) parts.pop();
  return { encoding, eol, finalNewline, lines: parts.map((raw) => ({ raw, tag: parseTagLine(raw) })) };
}

export function serializeTagFile(doc: TagFileDoc): Buffer {
  let text = doc.lines.map((l) => l.raw).join(doc.eol);
  if (doc.lines.length && doc.finalNewline) text += doc.eol;
  if (doc.encoding === 'utf16le-bom') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const body = Buffer.from(text, 'utf8');
  return doc.encoding === 'utf8-bom' ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

/** Tag paths of the file in order, first occurrence of each key. */
export function fileTagPaths(doc: TagFileDoc): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const l of doc.lines) {
    if (!l.tag) continue;
    const k = tagKey(l.tag);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(l.tag.path);
  }
  return out;
}

/**
 * Applies per-key changes (new path, or null to remove) to the document: a changed line is
 * replaced where it stands, a removed one dropped (with its duplicates), a new one inserted after
 * the last line of its project, or at the end. Every other line keeps its bytes and place.
 */
export function applyToTagFile(doc: TagFileDoc, changes: Map<string, string | null>): TagFileDoc {
  const pending = new Map(changes);
  const lines: TagFileLine[] = [];
  const handled = new Set<string>();
  for (const l of doc.lines) {
    const k = l.tag ? tagKey(l.tag) : null;
    if (k === null || !changes.has(k)) {
      lines.push(l);
      continue;
    }
    const next = changes.get(k)!;
    pending.delete(k);
    if (next === null || handled.has(k)) continue;
    handled.add(k);
    lines.push({ raw: next, tag: parseTagLine(next) });
  }
  for (const [, next] of pending) {
    if (next === null) continue;
    const tag = parseTagLine(next)!;
    const projectKey = tagKey({ ...tag, phase: null, activity: null });
    let at = -1;
    lines.forEach((l, i) => {
      if (l.tag && tagKey({ ...l.tag, phase: null, activity: null }) === projectKey) at = i;
    });
    const line = { raw: tag.path, tag };
    if (at >= 0) lines.splice(at + 1, 0, line);
    else lines.push(line);
  }
  return { ...doc, lines };
}
