/**
 * The shared HTTP pieces every area's routes reuse: the id schemas (an out-of-range SIRUTA is a
 * validation failure, so a 400, never PostgreSQL's int4 error) and the RFC 6266 attachment header.
 */
import { describe, expect, test } from '@jest/globals';
import { contentDisposition } from '../../api/http/contentDisposition';
import { LayerId, Siruta } from '../../api/http/schemas';

describe('id schemas', () => {
  test('siruta is a positive integer within int4, from a query string too', () => {
    expect(Siruta.parse('42682')).toBe(42682);
    for (const bad of ['0', '-3', '1.5', 'abc', '99999999999', 2_147_483_648]) expect(Siruta.safeParse(bad).success).toBe(false);
  });
  test('layer ids are upper-case portal names', () => {
    expect(LayerId.parse('TERENURI_ACTIVE')).toBe('TERENURI_ACTIVE');
    for (const bad of ['terenuri', '1ABC', 'A;DROP', '']) expect(LayerId.safeParse(bad).success).toBe(false);
  });
});

describe('Content-Disposition', () => {
  test('an ASCII fallback without diacritics or quotes, and the exact UTF-8 name in filename*', () => {
    const v = contentDisposition('Export Șieu-Măgheruș "bază".zip');
    expect(v).toBe(`attachment; filename="Export Sieu-Magherus _baza_.zip"; filename*=UTF-8''Export%20%C8%98ieu-M%C4%83gheru%C8%99%20%22baz%C4%83%22.zip`);
  });
});
