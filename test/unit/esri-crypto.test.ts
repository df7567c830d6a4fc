/** ESRI JSON → GeoJSON/WKT and the at-rest secret format. */
import { describe, expect, test } from '@jest/globals';
import { esriToEwkt, esriToGeoJson } from '../../domain/geo/esri';
import { DecryptionError, decryptSecret, encryptSecret, isEncryptedSecret } from '../../domain/crypto/secretBox';

// ESRI: outer rings clockwise, holes counter-clockwise (y up).
const outer = [[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]];
const hole = [[2, 2], [4, 2], [4, 4], [2, 4], [2, 2]];
const second = [[20, 0], [20, 5], [25, 5], [25, 0]]; // unclosed on purpose

describe('ESRI geometry', () => {
  test('a shell with a hole becomes one polygon', () => {
    expect(esriToGeoJson({ rings: [outer, hole] })).toEqual({ type: 'Polygon', coordinates: [outer, hole] });
  });
  test('two shells become a multipolygon and unclosed rings are closed', () => {
    const g = esriToGeoJson({ rings: [outer, second] });
    expect(g?.type).toBe('MultiPolygon');
    expect((g as { coordinates: number[][][][] }).coordinates[1][0]).toHaveLength(5);
  });
  test('paths, points and nulls', () => {
    expect(esriToGeoJson({ paths: [[[0, 0], [1, 1]]] })).toEqual({ type: 'LineString', coordinates: [[0, 0], [1, 1]] });
    expect(esriToGeoJson({ x: 1, y: 2 })).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(esriToGeoJson(null)).toBeNull();
    expect(esriToGeoJson({ rings: [] })).toBeNull();
  });
  test('EWKT carries the Stereo 70 SRID', () => {
    expect(esriToEwkt({ rings: [outer] })).toBe('SRID=3844;POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0))');
  });
});

describe('secret box', () => {
  test('round trip with fresh salt and IV each time', async () => {
    const a = await encryptSecret('JSESSIONID=ABC', 'k');
    const b = await encryptSecret('JSESSIONID=ABC', 'k');
    expect(a).not.toBe(b);
    expect(isEncryptedSecret(a)).toBe(true);
    expect(a.split(':')).toHaveLength(5);
    expect(await decryptSecret(a, 'k')).toBe('JSESSIONID=ABC');
  });
  test('a wrong secret or tampering is refused', async () => {
    const a = await encryptSecret('x', 'k');
    await expect(decryptSecret(a, 'other')).rejects.toThrow(DecryptionError);
    const parts = a.split(':');
    parts[4] = Buffer.from('y').toString('base64');
    await expect(decryptSecret(parts.join(':'), 'k')).rejects.toThrow(DecryptionError);
  });
  test('associated data binds a value: other or missing associated data is refused', async () => {
    const a = await encryptSecret('parolă', { secret: 'k', aad: 'vault-entry:1:B' });
    expect(await decryptSecret(a, { secret: 'k', aad: 'vault-entry:1:B' })).toBe('parolă');
    await expect(decryptSecret(a, { secret: 'k', aad: 'vault-entry:2:B' })).rejects.toThrow(DecryptionError);
    await expect(decryptSecret(a, { secret: 'k', aad: 'vault-entry:1:U' })).rejects.toThrow(DecryptionError);
    await expect(decryptSecret(a, 'k')).rejects.toThrow(DecryptionError);
  });
  test('the iteration count is part of the key: a value opens only with the count it was sealed with', async () => {
    const a = await encryptSecret('x', { secret: 'k', iterations: 1000 });
    expect(await decryptSecret(a, { secret: 'k', iterations: 1000 })).toBe('x');
    await expect(decryptSecret(a, { secret: 'k' })).rejects.toThrow(DecryptionError);
  });
  test('a truncated authentication tag is refused', async () => {
    const parts = (await encryptSecret('x', 'k')).split(':');
    parts[3] = Buffer.from(parts[3], 'base64').subarray(0, 8).toString('base64');
    await expect(decryptSecret(parts.join(':'), 'k')).rejects.toThrow(DecryptionError);
  });
  test('the key is derived off the event loop: a timer keeps firing while a 210,000-round derivation runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      // Fresh salt each time, so no memoised key: every call derives.
      await Promise.all([encryptSecret('a', 'fresh-1'), encryptSecret('b', 'fresh-2')]);
    } finally {
      clearInterval(timer);
    }
    // pbkdf2Sync would have held the loop for the whole derivation: not a single tick.
    expect(ticks).toBeGreaterThan(2);
  });
  test('the v1 format is kept: a value sealed with a synchronous PBKDF2 key still opens', async () => {
    const { createCipheriv, pbkdf2Sync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', pbkdf2Sync('k', salt, 210_000, 32, 'sha256'), iv);
    const ct = Buffer.concat([cipher.update('vechi', 'utf8'), cipher.final()]);
    const sealed = ['v1', salt, iv, cipher.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64'))).join(':');
    expect(await decryptSecret(sealed, 'k')).toBe('vechi');
  });
});
