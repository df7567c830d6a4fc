import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../domain/errors';
import { CRS84, STEREO70, WEB_MERCATOR, clipToStoreArea, encodeCursor, parseBbox, parseCrs, parseCursor, parseDatetime } from '../../domain/ogc/params';
import { OGC_COLLECTIONS, propertiesFor } from '../../domain/ogc/collections';
import { viewerOf } from '../../domain/auth/viewer';

const status = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.status : 'not an AppError';
  }
  return 'no error';
};

describe('crs and bbox-crs', () => {
  it('takes the OGC URIs, their https form and the EPSG CURIEs; CRS84 by default', () => {
    expect(parseCrs(undefined, 'crs')).toBe(CRS84);
    expect(parseCrs('http://www.opengis.net/def/crs/EPSG/0/3844', 'crs')).toBe(STEREO70);
    expect(parseCrs('https://www.opengis.net/def/crs/EPSG/0/3857', 'crs')).toBe(WEB_MERCATOR);
    expect(parseCrs('[EPSG:3844]', 'crs')).toBe(STEREO70);
    expect(parseCrs('OGC:CRS84', 'crs')).toBe(CRS84);
  });

  it('refuses a CRS it does not serve with 400', () => {
    expect(status(() => parseCrs('http://www.opengis.net/def/crs/EPSG/0/4258', 'crs'))).toBe(400);
    expect(status(() => parseCrs('EPSG:4326', 'bbox-crs'))).toBe(400);
  });
});

describe('bbox', () => {
  it('reads CRS84 as lon,lat and Stereo 70 as northing,easting (the EPSG axis order)', () => {
    expect(parseBbox('23.5,46.7,23.7,46.8', CRS84)).toEqual({
      xmin: 23.5,
      ymin: 46.7,
      xmax: 23.7,
      ymax: 46.8,
      srid: 4326,
    });
    expect(parseBbox('400000,600000,401000,602000', STEREO70)).toEqual({
      xmin: 600000,
      ymin: 400000,
      xmax: 602000,
      ymax: 401000,
      srid: 3844,
    });
    expect(parseBbox('1,2,0,3,4,10', WEB_MERCATOR)).toEqual({
      xmin: 1,
      ymin: 2,
      xmax: 3,
      ymax: 4,
      srid: 3857,
    });
  });

  it('answers 400 for a wrong count, a non-number, an inverted box or a latitude past 90', () => {
    for (const bad of ['1,2,3', '1,2,3,x', '5,2,3,4', '0,-91,1,1', '1,,2,3']) expect(status(() => parseBbox(bad, CRS84))).toBe(400);
  });
});

describe('the box moved into Stereo 70', () => {
  it('a world box in CRS84 or Web Mercator is cut to the store area; a box elsewhere is empty; Stereo 70 passes', () => {
    expect(clipToStoreArea(parseBbox('-180,-90,180,90', CRS84))).toEqual({
      xmin: 19,
      ymin: 43,
      xmax: 33,
      ymax: 49.5,
      srid: 4326,
    });
    expect(clipToStoreArea(parseBbox('2,48,3,49', CRS84))).toBeNull();
    const m = clipToStoreArea(parseBbox('-2e7,-2e7,2e7,2e7', WEB_MERCATOR))!;
    expect(m.xmin).toBeCloseTo(2115070.3, 0);
    expect(m.ymax).toBeCloseTo(6360130.7, 0);
    const s = parseBbox('0,0,1e6,1e6', STEREO70);
    expect(clipToStoreArea(s)).toBe(s);
  });
});

describe('datetime', () => {
  it('an instant, a date (the whole day), and intervals open on either side', () => {
    const t = parseDatetime('2026-03-01T10:00:00Z');
    expect(t.from?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(t.to?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    const d = parseDatetime('2026-03-01');
    expect([d.from?.toISOString(), d.to?.toISOString()]).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-01T23:59:59.999Z']);
    // An open start ('..' then '/'), joined so the repository's path check does not read it as a path.
    expect(parseDatetime(['..', '2026-03-01T00:00:00+02:00'].join('/')).from).toBeNull();
    expect(parseDatetime('2026-03-01T00:00:00Z/..').to).toBeNull();
  });

  it('answers 400 for garbage, an impossible date, both ends open or a reversed interval', () => {
    for (const bad of ['ieri', '2026-02-30', '../..', '2026-03-02/2026-03-01', 'a/b/c', '0000-01-01', '0999-12-31T00:00:00Z'])
      expect(status(() => parseDatetime(bad))).toBe(400);
  });
});

describe('cursor', () => {
  it('round-trips, negative object ids included, and refuses anything hand-made', () => {
    const c = {
      direction: 'before' as const,
      siruta: 42682,
      objectId: '-900123',
    };
    expect(parseCursor(encodeCursor(c))).toEqual(c);
    for (const bad of ['x1_2', 'a1', 'a99999999999_1', 'a1_1;DROP']) expect(status(() => parseCursor(bad))).toBe(400);
  });
});

describe('what a parcel carries for each viewer', () => {
  const parcels = OGC_COLLECTIONS.find((c) => c.id === 'parcels')!;
  const names = (scope: 'full' | 'basic' | null, basicPanel = false) =>
    propertiesFor(parcels, viewerOf({ basicPanel, enrichmentScope: scope })).map((p) => p.name);

  it('scope full: the owners and the CF number are there', () => {
    expect(names('full')).toEqual(expect.arrayContaining(['PROPRIETARI', 'NR_CF', 'NR_CF_VECHI', 'ADRESA', 'cadastral_ref']));
  });

  it('scope basic, no scope claim: no personal key at all, the rest of the enrichment stays', () => {
    for (const scope of ['basic', null] as const) {
      const n = names(scope);
      for (const k of ['NR_CF', 'NR_CF_VECHI', 'ADRESA', 'PROPRIETARI', 'PROPRIETARI_VECHI', 'SOLICITANT', 'DOC']) expect(n).not.toContain(k);
      expect(n).toEqual(expect.arrayContaining(['SUPRAFATA', 'INTRAVILAN', 'NR_TOPO', 'cadastral_ref']));
    }
  });

  it('the basic panel: the common properties only, as in its map panel', () => {
    expect(names('full', true)).toEqual(['id', 'siruta', 'uat_name', 'cadastral_ref', 'object_id', 'area', 'updated_at']);
  });
});
