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
  test('round trip with fresh salt and IV each time', () => {
    const a = encryptSecret('JSESSIONID=ABC', 'k');
    const b = encryptSecret('JSESSIONID=ABC', 'k');
    expect(a).not.toBe(b);
    expect(isEncryptedSecret(a)).toBe(true);
    expect(a.split(':')).toHaveLength(5);
    expect(decryptSecret(a, 'k')).toBe('JSESSIONID=ABC');
  });
  test('a wrong secret or tampering is refused', () => {
    const a = encryptSecret('x', 'k');
    expect(() => decryptSecret(a, 'other')).toThrow(DecryptionError);
    const parts = a.split(':');
    parts[4] = Buffer.from('y').toString('base64');
    expect(() => decryptSecret(parts.join(':'), 'k')).toThrow(DecryptionError);
  });
  test('associated data binds a value: other or missing associated data is refused', () => {
    const a = encryptSecret('parolă', { secret: 'k', aad: 'vault-entry:1:B' });
    expect(decryptSecret(a, { secret: 'k', aad: 'vault-entry:1:B' })).toBe('parolă');
    expect(() => decryptSecret(a, { secret: 'k', aad: 'vault-entry:2:B' })).toThrow(DecryptionError);
    expect(() => decryptSecret(a, { secret: 'k', aad: 'vault-entry:1:U' })).toThrow(DecryptionError);
    expect(() => decryptSecret(a, 'k')).toThrow(DecryptionError);
  });
  test('the iteration count is part of the key: a value opens only with the count it was sealed with', () => {
    const a = encryptSecret('x', { secret: 'k', iterations: 1000 });
    expect(decryptSecret(a, { secret: 'k', iterations: 1000 })).toBe('x');
    expect(() => decryptSecret(a, { secret: 'k' })).toThrow(DecryptionError);
  });
  test('a truncated authentication tag is refused', () => {
    const parts = encryptSecret('x', 'k').split(':');
    parts[3] = Buffer.from(parts[3], 'base64').subarray(0, 8).toString('base64');
    expect(() => decryptSecret(parts.join(':'), 'k')).toThrow(DecryptionError);
  });
});
