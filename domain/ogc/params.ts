/**
 * The query parameters of OGC API Features Part 1 and Part 2 (issue 29; docs/qgis.md): CRS
 * identifiers, `bbox` with `bbox-crs`, `datetime` and the keyset cursor of the paging links.
 * Pure: no I/O, each function either answers or throws a 400 with the parameter named.
 *
 * Part 2 says coordinates follow the axis order of the CRS. EPSG:3844 (Stereo 70) is
 * northing-first in the EPSG registry, so with `crs=…/EPSG/0/3844` a position is [northing,
 * easting] and a `bbox` under `bbox-crs=…/EPSG/0/3844` is minN,minE,maxN,maxE. CRS84 and
 * EPSG:3857 are east-first.
 */
import { errors } from '../errors';

export interface OgcCrs {
  uri: string;
  srid: number;
  /** The CRS's first axis is northing/latitude (positions must be flipped from PostGIS x/y). */
  northingFirst: boolean;
  /** Short label for people (docs, UI). */
  label: string;
}

export const CRS84: OgcCrs = {
  uri: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  srid: 4326,
  northingFirst: false,
  label: 'WGS 84 (CRS84)',
};
export const STEREO70: OgcCrs = {
  uri: 'http://www.opengis.net/def/crs/EPSG/0/3844',
  srid: 3844,
  northingFirst: true,
  label: 'EPSG:3844 Stereo 70',
};
export const WEB_MERCATOR: OgcCrs = {
  uri: 'http://www.opengis.net/def/crs/EPSG/0/3857',
  srid: 3857,
  northingFirst: false,
  label: 'EPSG:3857',
};

/** Every CRS a collection answers in; the store's is EPSG:3844 (storageCrs). */
export const SUPPORTED_CRS: readonly OgcCrs[] = [CRS84, STEREO70, WEB_MERCATOR];
export const STORAGE_CRS = STEREO70;

/** The URI, its https form, or the CURIE `[EPSG:3844]` / `EPSG:3844` a client may send. */
export function parseCrs(value: string | undefined, param: string): OgcCrs {
  if (value === undefined || value === '') return CRS84;
  const v = value.trim().replace(/^https:/i, 'http:');
  const curie = /^\[?(EPSG|OGC):(\d+|CRS84)\]?$/i.exec(v);
  for (const crs of SUPPORTED_CRS) {
    if (v === crs.uri) return crs;
    if (curie) {
      const [authority, code] = [curie[1].toUpperCase(), curie[2].toUpperCase()];
      if (authority === 'OGC' && code === 'CRS84' && crs === CRS84) return crs;
      if (authority === 'EPSG' && code === String(crs.srid) && crs !== CRS84) return crs;
    }
  }
  throw errors.badRequest(`Sistemul de coordonate din parametrul ${param} nu este suportat.`, [
    {
      field: param,
      problem: `Valori acceptate: ${SUPPORTED_CRS.map((c) => c.uri).join(', ')}.`,
    },
  ]);
}

/** An envelope in PostGIS x/y order (east, north) in the given SRID. */
export interface Envelope {
  xmin: number;
  ymin: number;
  xmax: number;
  ymax: number;
  srid: number;
}

const bboxError = (problem: string) => errors.badRequest('Parametrul bbox nu este valid.', [{ field: 'bbox', problem }]);

/** `bbox` (4 numbers, or 6 with heights, which are ignored) in the axis order of `crs`. */
export function parseBbox(value: string, crs: OgcCrs): Envelope {
  const parts = value.split(',');
  if (parts.length !== 4 && parts.length !== 6) throw bboxError('Sunt necesare 4 (sau 6) numere separate prin virgulă.');
  const n = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
  if (n.some((x) => !Number.isFinite(x))) throw bboxError('Fiecare valoare trebuie să fie un număr.');
  const [a1, a2, b1, b2] = parts.length === 4 ? n : [n[0], n[1], n[3], n[4]];
  const [xmin, ymin, xmax, ymax] = crs.northingFirst ? [a2, a1, b2, b1] : [a1, a2, b1, b2];
  if (xmin > xmax || ymin > ymax) throw bboxError('Colțul din stânga jos trebuie să fie înaintea celui din dreapta sus.');
  if (crs === CRS84 && (xmin < -180 || xmax > 180 || ymin < -90 || ymax > 90)) {
    throw bboxError('Longitudinea este între -180 și 180, latitudinea între -90 și 90.');
  }
  return { xmin, ymin, xmax, ymax, srid: crs.srid };
}

/**
 * Where the store's features can be: Romania with a margin (EPSG:3844's area of use is lat
 * 43.44–48.27, lon 20.26–31.41), in CRS84 and in Web Mercator.
 */
const STORE_AREA_84 = { xmin: 19, ymin: 43, xmax: 33, ymax: 49.5 };
const mercX = (lon: number) => (lon * 20037508.342789244) / 180;
const mercY = (lat: number) => Math.log(Math.tan(((90 + lat) * Math.PI) / 360)) * 6378137;
const STORE_AREA: Record<number, { xmin: number; ymin: number; xmax: number; ymax: number }> = {
  4326: STORE_AREA_84,
  3857: {
    xmin: mercX(STORE_AREA_84.xmin),
    ymin: mercY(STORE_AREA_84.ymin),
    xmax: mercX(STORE_AREA_84.xmax),
    ymax: mercY(STORE_AREA_84.ymax),
  },
};

/**
 * A CRS84 or Web Mercator box cut to the store's area before it is moved into Stereo 70: a
 * client zoomed out asks for the whole world, and a world box has no meaningful image in a
 * stereographic projection centred on Romania (it would wrap around and miss the country).
 * Null when nothing of the box is there. Stereo 70 boxes pass unchanged.
 */
export function clipToStoreArea(e: Envelope): Envelope | null {
  const area = STORE_AREA[e.srid];
  if (!area) return e;
  const c = {
    xmin: Math.max(e.xmin, area.xmin),
    ymin: Math.max(e.ymin, area.ymin),
    xmax: Math.min(e.xmax, area.xmax),
    ymax: Math.min(e.ymax, area.ymax),
    srid: e.srid,
  };
  return c.xmin > c.xmax || c.ymin > c.ymax ? null : c;
}

/** A closed or half-open interval on the sync stamp (`updated_at`); null ends are open. */
export interface TimeRange {
  from: Date | null;
  to: Date | null;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const dtError = (problem: string) => errors.badRequest('Parametrul datetime nu este valid.', [{ field: 'datetime', problem }]);

function instant(text: string): { start: Date; end: Date } {
  if (DATE.test(text)) {
    const start = new Date(`${text}T00:00:00Z`);
    if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== text || start.getUTCFullYear() < 1000) {
      throw dtError(`Data ${text} nu există.`);
    }
    return { start, end: new Date(start.getTime() + 86_400_000 - 1) };
  }
  if (!RFC3339.test(text)) throw dtError('Folosiți RFC 3339, de exemplu 2026-03-01T00:00:00Z, sau o dată 2026-03-01.');
  const d = new Date(text);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1000) throw dtError(`Momentul ${text} nu există.`);
  return { start: d, end: d };
}

/** Part 1 `datetime`: an instant, a date, or an interval `a/b` with `..` (or empty) for an open end. */
export function parseDatetime(value: string): TimeRange {
  const parts = value.split('/');
  if (parts.length === 1) {
    const { start, end } = instant(parts[0]);
    return { from: start, to: end };
  }
  if (parts.length !== 2) throw dtError('Un interval are exact două capete separate prin „/”.');
  const open = (p: string) => p === '' || p === '..';
  if (open(parts[0]) && open(parts[1])) throw dtError('Cel puțin un capăt al intervalului trebuie dat.');
  const from = open(parts[0]) ? null : instant(parts[0]).start;
  const to = open(parts[1]) ? null : instant(parts[1]).end;
  if (from && to && from > to) throw dtError('Începutul intervalului este după sfârșitul lui.');
  return { from, to };
}

/**
 * The keyset cursor of `next`/`prev` links: the (siruta, object_id) of the last (or first) feature
 * of the page and the direction. The unique key of gis_features (with the layer) never changes
 * for a feature, so a walk sees every feature present throughout exactly once, whatever a sync
 * inserts, updates or deletes meanwhile (an OFFSET would shift by the rows written before it).
 */
export interface Cursor {
  direction: 'after' | 'before';
  siruta: number;
  objectId: string;
}

const CURSOR = /^([ab])(\d{1,10})_(-?\d{1,18})$/;

export function encodeCursor(c: Cursor): string {
  return `${c.direction === 'after' ? 'a' : 'b'}${c.siruta}_${c.objectId}`;
}

export function parseCursor(value: string): Cursor {
  const m = CURSOR.exec(value);
  const siruta = m ? Number(m[2]) : NaN;
  if (!m || siruta > 2_147_483_647) {
    throw errors.badRequest('Parametrul cursor nu este valid.', [
      {
        field: 'cursor',
        problem: 'Folosiți legăturile next/prev ale paginii, nu construiți cursorul de mână.',
      },
    ]);
  }
  return {
    direction: m[1] === 'a' ? 'after' : 'before',
    siruta,
    objectId: m[3],
  };
}
