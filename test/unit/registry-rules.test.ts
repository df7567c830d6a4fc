/** Registry rules that need no I/O: number formats (spec 2.7, 9.3) and status extraction (spec 3.5). */
import { describe, expect, test } from '@jest/globals';
import { formatRegistryNumber, nextSequence, parseRegistryNumber } from '../../domain/registry/numbers';
import { extractStatus, normaliseStatusText } from '../../domain/registry/status';

describe('registry numbers', () => {
  test.each([
    ['B-2026-00042', null, { format: 'current', company: 'B', year: 2026, sequence: 42 }],
    ['BTG-2024-IN-00042', null, { format: 'old', company: 'B', year: 2024, sequence: 42, direction: 'intrare' }],
    ['urb-2024-out-7', null, { format: 'old', company: 'U', year: 2024, sequence: 7, direction: 'iesire' }],
    ['GRP-2023-IN-00100', null, { format: 'old', company: 'G', year: 2023, sequence: 100 }],
    ['42/2023', 'S', { format: 'legacy', company: 'S', year: 2023, sequence: 42 }],
    [' 7 / 2022 ', 'U', { format: 'legacy', company: 'U', year: 2022, sequence: 7 }],
  ] as const)('%s is parsed', (text, company, expected) => {
    expect(parseRegistryNumber(text, company)).toMatchObject(expected);
  });

  test.each(['X-2026-00001', 'B-26-00001', 'ABC-2024-IN-1', '42-2023', ''])('%s is not a registry number', (text) => {
    expect(parseRegistryNumber(text)).toBeNull();
  });

  test('only the current format is written, five digits', () => {
    expect(formatRegistryNumber('S', 2026, 7)).toBe('S-2026-00007');
    expect(formatRegistryNumber('B', 2026, 123456)).toBe('B-2026-123456');
    expect(nextSequence([3, 41, 45, 2])).toBe(46);
    expect(nextSequence([])).toBe(1);
  });
});

const page = (label: string, text: string, extra = '') => `<html><body><p class="vizita">vizitatori: ${Math.random()}</p>${extra}
  <td id="petent">Popescu Ştefan</td>
  <div id="stare-cerere"><strong class="stare">${label}</strong><p class="detalii">  ${text}\n </p></div>
  <table id="istoric"><tr><td>01.02.2026</td><td>Înregistrată</td><td>x</td></tr></table></body></html>`;

describe('status pages', () => {
  test('cedilla letters and whitespace do not change the hash; the page around the block is ignored', () => {
    const a = extractStatus(page('În analiză', 'Documentația este în curs de verificare.'))!;
    const b = extractStatus(page('În  analiză', 'Documentaţia   este în curs de verificare.', '<p>banner nou</p>'))!;
    expect(a.hash).toBe(b.hash);
    expect(a).toMatchObject({ code: 'in_analiza', statusClass: 'amber', petitionerName: 'Popescu Ștefan' });
    expect(a.history).toEqual([{ date: '01.02.2026', status: 'Înregistrată', text: 'x' }]);
  });

  test.each([
    ['Înregistrată', 'inregistrat', 'blue'],
    ['Completări solicitate', 'completari', 'amber'],
    ['Aprobată', 'aprobat', 'green'],
    ['Emisă', 'emis', 'green'],
    ['Respinsă', 'respins', 'red'],
  ])('%s is %s (%s)', (label, code, cls) => {
    expect(extractStatus(page(label, 't'))).toMatchObject({ code, statusClass: cls });
  });

  test('a different status text is a change', () => {
    expect(extractStatus(page('Aprobată', 'a'))!.hash).not.toBe(extractStatus(page('Aprobată', 'b'))!.hash);
  });

  test('an error page has no status', () => {
    expect(extractStatus('<html><body><h1>A apărut o eroare</h1></body></html>')).toBeNull();
    expect(extractStatus('<html><body><div id="stare-cerere"></div></body></html>')).toBeNull();
  });

  test('normalisation', () => {
    expect(normaliseStatusText(' Ţară  şi\n ŞCOALĂ ')).toBe('Țară și ȘCOALĂ');
  });
});
