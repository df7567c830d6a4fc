/** The tag file's three-way merge and its line-preserving rewrite (docs/office.md "Tag sync"). */
import { describe, expect, test } from '@jest/globals';
import { mergeTags, planSync, tagKey, type SyncMode } from '../../domain/tags/merge';
import { applyToTagFile, fileTagPaths, parseTagFile, serializeTagFile, TagFileEncodingError } from '../../domain/tags/tagFile';
import { parseTagLine } from '../../domain/tags/tagPath';

const P = 'B-0123 Casa Popescu';
const key = (line: string) => tagKey(parseTagLine(line)!);

describe('tag lines', () => {
  test.each([
    ['B-0123 Casa Popescu', { category: 'project', projectCode: 'B-0123', projectName: 'Casa Popescu', company: 'B', phase: null }],
    ['  U-0007 PUZ Sânpetru ,  Avizare ', { path: 'U-0007 PUZ Sânpetru, Avizare', category: 'phase', company: 'U' }],
    ['URB-0042 Bloc, DTAC, Releveu', { category: 'activity', projectCode: 'URB-0042', company: 'U', activity: 'Releveu' }],
    ['Administrativ, Ședințe', { category: 'phase', projectCode: null, company: null, projectName: 'Administrativ' }],
  ])('%s', (line, expected) => {
    expect(parseTagLine(line)).toEqual(expect.objectContaining(expected));
  });
  test.each(['', '   ', '# comentariu', 'a, , b', 'a, b, c, d'])('%j is not a tag', (line) => {
    expect(parseTagLine(line)).toBeNull();
  });
  test('a renamed project keeps its identity through its code', () => {
    expect(key(`${P}, DTAC`)).toBe(key('B-0123 Casa Popescu-Ionescu, DTAC'));
    expect(key(`${P}, DTAC`)).not.toBe(key(`${P}, PT`));
  });
});

describe('sync plan', () => {
  type Row = [string, string[] | null, string[], string[], { file?: object; db?: object; conflicts?: number; inSync?: boolean }];
  const rows: Row[] = [
    ['nothing changed', [P], [P], [P], { inSync: true, conflicts: 0 }],
    ['first sync: each side adds what it alone has', null, [P], [`${P}, DTAC`], { file: { added: [P] }, db: { added: [`${P}, DTAC`] } }],
    ['added in the file', [P], [P, `${P}, DTAC`], [P], { file: { added: [`${P}, DTAC`] }, db: { added: [] } }],
    ['removed in the app', [P, `${P}, DTAC`], [P, `${P}, DTAC`], [P], { db: { removed: [`${P}, DTAC`] } }],
    ['renamed in the file', [P], ['B-0123 Casa Ionescu'], [P], { file: { changed: [{ from: P, to: 'B-0123 Casa Ionescu' }] } }],
    ['same edit on both sides is no conflict', [P], ['B-0123 Casa X'], ['B-0123 Casa X'], { inSync: true, conflicts: 0 }],
    ['different edits on both sides conflict', [P], ['B-0123 Casa X'], ['B-0123 Casa Y'], { conflicts: 1 }],
    ['edited on one side, removed on the other: conflict', [P], ['B-0123 Casa X'], [], { conflicts: 1 }],
    ['first sync with different texts for one tag: conflict', null, ['B-0123 Casa X'], ['B-0123 Casa Y'], { conflicts: 1 }],
  ];
  test.each(rows)('%s', (_name, base, file, db, expected) => {
    const plan = planSync(base, file, db);
    if (expected.file) expect(plan.file).toEqual(expect.objectContaining(expected.file));
    if (expected.db) expect(plan.db).toEqual(expect.objectContaining(expected.db));
    if (expected.conflicts !== undefined) expect(plan.conflicts).toHaveLength(expected.conflicts);
    if (expected.inSync !== undefined) expect(plan.inSync).toBe(expected.inSync);
  });
});

describe('merge by mode', () => {
  const base = [P, `${P}, DTAC`, 'U-0007 PUZ'];
  const file = [P, `${P}, DTAC`, 'U-0007 PUZ Sânpetru', 'S-0001 Nou din fișier']; // renamed U-0007, added S-0001
  const db = [P, 'U-0007 PUZ', 'G-0002 Nou din aplicație']; // removed DTAC, added G-0002
  test.each<[SyncMode, string[], string[], string[]]>([
    ['pull', ['S-0001 Nou din fișier'], [], []],
    ['push', [], [], [`${P}, DTAC`, 'G-0002 Nou din aplicație']],
    ['both', ['S-0001 Nou din fișier'], [], [`${P}, DTAC`, 'G-0002 Nou din aplicație']],
  ])('%s', (mode, dbAdds, dbRemoves, fileTouched) => {
    const r = mergeTags(base, file, db, mode);
    expect(r.dbChanges.add).toEqual(dbAdds);
    expect(r.dbChanges.remove).toEqual(dbRemoves);
    expect(r.dbChanges.rename).toEqual(mode === 'push' ? [] : [{ from: 'U-0007 PUZ', to: 'U-0007 PUZ Sânpetru' }]);
    expect([...r.fileChanges.keys()].sort()).toEqual(fileTouched.map(key).sort());
    expect(r.unresolved).toEqual([]);
    // Whatever was not applied stays at its old base, so the next plan still shows it.
    const after = planSync(r.newBase, mode === 'pull' ? file : applyPaths(file, r.fileChanges), mode === 'push' ? db : applyDb(db, r));
    expect(after.inSync).toBe(mode === 'both');
  });

  test('a conflict is left alone until resolved, then the chosen side wins on both', () => {
    const r = mergeTags([P], ['B-0123 Casa X'], ['B-0123 Casa Y'], 'both');
    expect(r.unresolved).toHaveLength(1);
    expect(r.fileChanges.size).toBe(0);
    expect(r.dbChanges).toEqual({ add: [], remove: [], rename: [] });
    expect(r.newBase).toEqual([P]);
    const k = r.unresolved[0].key;
    const byFile = mergeTags([P], ['B-0123 Casa X'], ['B-0123 Casa Y'], 'push', { [k]: 'file' });
    expect(byFile.dbChanges.rename).toEqual([{ from: 'B-0123 Casa Y', to: 'B-0123 Casa X' }]);
    expect(byFile.newBase).toEqual(['B-0123 Casa X']);
    const byDb = mergeTags([P], ['B-0123 Casa X'], ['B-0123 Casa Y'], 'pull', { [k]: 'db' });
    expect(byDb.fileChanges.get(k)).toBe('B-0123 Casa Y');
  });
});

function applyPaths(file: string[], changes: Map<string, string | null>): string[] {
  const doc = parseTagFile(Buffer.from(file.join('\n') + '\n'));
  return fileTagPaths(applyToTagFile(doc, changes));
}
function applyDb(db: string[], r: ReturnType<typeof mergeTags>): string[] {
  const renamed = db.map((p) => r.dbChanges.rename.find((x) => x.from === p)?.to ?? p);
  return [...renamed.filter((p) => !r.dbChanges.remove.includes(p)), ...r.dbChanges.add];
}

describe('tag file text', () => {
  test('a rewrite keeps BOM, CRLF, comments, untouched lines and their order byte for byte', () => {
    const text = `\uFEFF# Etichete\r\nU-0007 PUZ\r\n${P}\r\n${P},   DTAC\r\n\r\nAdministrativ\r\n`;
    const doc = parseTagFile(Buffer.from(text, 'utf8'));
    expect(doc.encoding).toBe('utf8-bom');
    expect(serializeTagFile(doc).toString('utf8')).toBe(text);
    const changes = new Map<string, string | null>([
      [key('U-0007 PUZ'), 'U-0007 PUZ Sânpetru'],
      [key(`${P}, PT`), `${P}, PT`],
      [key('Administrativ'), null],
    ]);
    const out = serializeTagFile(applyToTagFile(doc, changes)).toString('utf8');
    expect(out).toBe(`\uFEFF# Etichete\r\nU-0007 PUZ Sânpetru\r\n${P}\r\n${P},   DTAC\r\n${P}, PT\r\n\r\n`);
  });
  test('UTF-16LE with BOM stays UTF-16LE', () => {
    const buf = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${P}\n`, 'utf16le')]);
    const doc = parseTagFile(buf);
    expect(fileTagPaths(doc)).toEqual([P]);
    const out = serializeTagFile(applyToTagFile(doc, new Map([[key('Ștampile'), 'Ștampile']])));
    expect(out.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
    expect(out.subarray(2).toString('utf16le')).toBe(`${P}\nȘtampile\n`);
  });
  test('bytes that are not UTF-8 are refused rather than rewritten', () => {
    expect(() => parseTagFile(Buffer.from([0x41, 0xba, 0x0a]))).toThrow(TagFileEncodingError);
  });
});
