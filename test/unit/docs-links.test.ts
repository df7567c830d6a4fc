/**
 * The docs hold together: every relative link of README.md and docs/ (`[..](x.md#anchor)`) names
 * a file that exists and, with an anchor, a heading of that file; and every section a source
 * comment names (`docs/x.md "Title"`) is a heading of that page. Pages are split and sections
 * moved (measurement logs to docs/bench/), and a reader following a stale link lands nowhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../domain/config';

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(path.join(projectRoot, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}

/** Without fenced code blocks, where `[a](b)` and `# x` are code, not links or headings. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

function headings(file: string): string[] {
  return [...prose(fs.readFileSync(path.join(projectRoot, file), 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) => m[1]);
}

/** GitHub's anchor of each heading (lower case, punctuation dropped, spaces to hyphens, repeats numbered) and the page's `<a id>`s. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(file)) {
    const text = h.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of fs.readFileSync(path.join(projectRoot, file), 'utf8').matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

const docs = ['README.md', ...markdownFiles('docs')];

const links = docs.flatMap((file) =>
  [...prose(fs.readFileSync(path.join(projectRoot, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ file, target })),
);

const sourceDirs = ['api', 'domain', 'workflows', 'activities', 'workers', 'temporal', 'scripts', 'simulators', 'sidecars', 'web/app', 'test', 'prisma', 'deploy'];
function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(path.join(projectRoot, dir))) return [];
  return fs.readdirSync(path.join(projectRoot, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'build' ? [] : sourceFiles(rel);
    return /\.(ts|tsx|sql|sh|conf|yml)$|^Dockerfile$/.test(e.name) ? [rel] : [];
  });
}
const mentions = [...sourceDirs.flatMap(sourceFiles), 'docker-compose.yml', '.env.example']
  .filter((file) => file !== path.join('test', 'unit', 'docs-links.test.ts'))
  .flatMap((file) =>
  [...fs.readFileSync(path.join(projectRoot, file), 'utf8').matchAll(/\bdocs\/([a-z/-]+\.md),? "([^"\n]+)"/g)].map((m) => ({
    file,
    page: `docs/${m[1]}`,
    title: m[2],
  })),
);

test('the scans find the links and mentions (the check itself works)', () => {
  expect(links.length).toBeGreaterThan(50);
  expect(links.filter((l) => l.target.includes('#')).length).toBeGreaterThan(10);
  expect(mentions.length).toBeGreaterThan(20);
  expect(anchors('docs/api.md')).toContain('pdf-tools-spec-47-contractmd-section-4-pdf');
});

test.each(links)('$file links to $target', ({ file, target }) => {
  const [rel, anchor] = target.split('#');
  const resolved = rel ? path.normalize(path.join(path.dirname(file), decodeURIComponent(rel))) : file;
  expect(fs.existsSync(path.join(projectRoot, resolved))).toBe(true);
  if (anchor && resolved.endsWith('.md')) expect([...anchors(resolved)]).toContain(anchor);
});

/**
 * What a comment may name as a section: a heading, a bold lead (`**Title.**`, the decisions
 * lists), a list item's opening words, a table row's first cell, or an `<a id>` spelled as the
 * title; compared without backticks or case.
 */
function sectionTitles(page: string): string[] {
  const text = prose(fs.readFileSync(path.join(projectRoot, page), 'utf8')).replace(/`/g, '');
  return [
    ...headings(page).map((h) => h.replace(/`/g, '')),
    ...[...text.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]),
    ...[...text.matchAll(/^\s*[-*] ([^:(\n]+)/gm)].map((m) => m[1]),
    ...[...text.matchAll(/^\|\s*([^|]+?)\s*\|/gm)].map((m) => m[1]),
    ...[...text.matchAll(/<a (?:id|name)="([^"]+)"/g)].map((m) => m[1].replace(/-/g, ' ')),
  ].map((t) => t.toLowerCase());
}

test.each(mentions)('$file names $page "$title"', ({ page, title }) => {
  expect(fs.existsSync(path.join(projectRoot, page))).toBe(true);
  expect(sectionTitles(page).filter((t) => t.includes(title.toLowerCase()))).not.toEqual([]);
});
