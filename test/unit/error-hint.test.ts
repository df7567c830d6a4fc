/** A 5xx hint never tells the caller a host, a user, a URL or a file path (issue 13). */
import { expect, it } from '@jest/globals';
import { sanitizeHint } from '../../api/http/errorMapper';

it.each([
  ['connect ECONNREFUSED 127.0.0.1:5432', ['127.0.0.1', '5432']],
  ['password authentication failed for user "geoportal"', ['geoportal']],
  ['GET /immovable/search: fetch failed http://portal.intern.ro:8080/eterra/api', ['portal.intern.ro', '8080', 'eterra']],
  ["ENOENT: no such file or directory, open '/root/work/.data/test/x.gpkg'", ['/root', '.data']],
  ['getaddrinfo ENOTFOUND db.internal.example', ['db.internal.example']],
  ['connection to postgres://admin:pw@10.0.0.5/geo failed', ['admin', 'pw', '10.0.0.5']],
])('%s', (hint, secrets) => {
  const out = sanitizeHint(hint);
  for (const s of secrets) expect(out).not.toContain(s);
  expect(out.length).toBeGreaterThan(5);
});

it('keeps what says what kind of failure it was', () => {
  expect(sanitizeHint('value out of range for type integer')).toBe('value out of range for type integer');
  expect(sanitizeHint('503 GET /map/rest/X/query')).toContain('503');
});
