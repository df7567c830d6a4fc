import { describe, expect, test } from '@jest/globals';
import { formatViewHash, parseViewHash } from '../../web/app/lib/geoportal/viewHash';

describe('the map view in the URL', () => {
  test('writes zoom, latitude and longitude as MapLibre does, with a precision that follows the zoom', () => {
    expect(formatViewHash({ zoom: 16.5, lat: 45.86213441, lon: 25.79012345, basemap: 'none' })).toBe('#16.5/45.862134/25.790123');
    expect(formatViewHash({ zoom: 6.123, lat: 45.9432, lon: 24.9668, basemap: 'none' })).toBe('#6.12/45.943/24.967');
  });

  test('keeps a chosen basemap beside the view and leaves the default out', () => {
    const hash = formatViewHash({ zoom: 14, lat: 45.86, lon: 25.79, basemap: 'ortho' });
    expect(hash).toBe('#14/45.86/25.79&basemap=ortho');
    expect(parseViewHash(hash)).toEqual({ zoom: 14, lat: 45.86, lon: 25.79, basemap: 'ortho' });
  });

  test('reads a MapLibre hash with bearing and pitch, ignoring them', () => {
    expect(parseViewHash('#15/45.1/25.2/30/40')).toEqual({ zoom: 15, lat: 45.1, lon: 25.2, basemap: 'none' });
  });

  test.each(['', '#', '#abc', '#15/45', '#99/45/25', '#10/91/25', '#10/45/181', '#x/y/z'])('%p names no view', (hash) => {
    expect(parseViewHash(hash)).toBeNull();
  });

  test('an unknown basemap falls back to the default', () => {
    expect(parseViewHash('#10/45/25&basemap=satellite')?.basemap).toBe('none');
  });
});
