/**
 * The portal's nomenclature built from the project's real reference data: the 42 counties
 * (workspaces) and 3186 UATs of data/reference, with boundaries reprojected to EPSG:3844 on
 * first use. Workspace id = the county's SIRUTA code (documented in the README).
 */
import fs from 'node:fs';
import path from 'node:path';
import { toStereo70 } from '../shared/stereo70';
import { bboxOf, esriOrient, signedArea, type BBox, type Ring } from './geometry';

export interface Locality {
  siruta: number;
  name: string;
}

export interface County {
  workspaceId: number;
  siruta: number;
  code: string;
  name: string;
  /** SIRUTA county number (JUD, 1..52). */
  countyNo: number;
  uats: Uat[];
}

export interface Uat {
  siruta: number;
  name: string;
  /** DENLOC as SIRUTA spells it: upper case with cedillas. */
  officialName: string;
  /** SIRUTA TIP: 1 county-seat municipality, 2 town, 3 commune, 4 municipality, 5 county-seat town, 6 Bucharest sector. */
  type: number;
  workspaceId: number;
  countyName: string;
  /** Position in the national list sorted by SIRUTA: keys OBJECTID ranges. */
  ordinal: number;
  localities: Locality[];
  wgs84: number[][][][];
  projected?: { rings: Ring[]; bbox: BBox; area: number };
}

interface GeoFeature {
  properties: Record<string, unknown>;
  geometry: { type: 'Polygon' | 'MultiPolygon'; coordinates: number[][][] | number[][][][] };
}

/** Romanian title case of an upper-case SIRUTA name, with comma-below diacritics. */
export function titleCaseRo(upper: string): string {
  return upper
    .replace(/Ş/g, 'Ș')
    .replace(/Ţ/g, 'Ț')
    .toLocaleLowerCase('ro')
    .replace(/(^|[\s\-.(])(\p{L})/gu, (_m, sep: string, ch: string) => sep + ch.toLocaleUpperCase('ro'))
    .replace(/ (De|Din|Pe|La|Cu|Lui|Sub|Și) /g, (w) => w.toLocaleLowerCase('ro'));
}

export class Nomenclature {
  readonly counties: County[] = [];
  readonly uats: Uat[] = [];
  private readonly bySiruta = new Map<number, Uat>();
  private readonly byWorkspace = new Map<number, County>();

  constructor(dataDir: string) {
    const csv = fs.readFileSync(path.join(dataDir, 'siruta-2024.csv'), 'utf8').split(/\r?\n/);
    const rows = csv.slice(1).filter(Boolean).map((l) => l.split(','));
    const denloc = new Map<number, { name: string; tip: number; jud: number }>();
    const localitiesOf = new Map<number, Locality[]>();
    for (const r of rows) {
      const siruta = Number(r[0]);
      const niv = Number(r[6]);
      denloc.set(siruta, { name: r[1], tip: Number(r[5]), jud: Number(r[3]) });
      if (niv === 3) {
        const parent = Number(r[4]);
        const list = localitiesOf.get(parent) ?? [];
        list.push({ siruta, name: titleCaseRo(r[1]) });
        localitiesOf.set(parent, list);
      }
    }

    const countiesGeo = JSON.parse(fs.readFileSync(path.join(dataDir, 'uat-boundaries', 'counties.geojson'), 'utf8'));
    for (const f of countiesGeo.features as GeoFeature[]) {
      const siruta = Number(f.properties.id);
      const county: County = {
        workspaceId: siruta,
        siruta,
        code: String(f.properties.code),
        name: String(f.properties.name),
        countyNo: denloc.get(siruta)?.jud ?? 0,
        uats: [],
      };
      const file = JSON.parse(fs.readFileSync(path.join(dataDir, 'uat-boundaries', `${siruta}.geojson`), 'utf8'));
      for (const uf of file.features as GeoFeature[]) {
        const us = Number(uf.properties.id);
        const d = denloc.get(us);
        const coords =
          uf.geometry.type === 'Polygon'
            ? [uf.geometry.coordinates as number[][][]]
            : (uf.geometry.coordinates as number[][][][]);
        const uat: Uat = {
          siruta: us,
          name: String(uf.properties.name),
          officialName: d?.name ?? String(uf.properties.name).toUpperCase(),
          type: d?.tip ?? 3,
          workspaceId: county.workspaceId,
          countyName: county.name,
          ordinal: 0,
          localities: localitiesOf.get(us) ?? [{ siruta: us, name: String(uf.properties.name) }],
          wgs84: coords,
        };
        county.uats.push(uat);
        this.uats.push(uat);
      }
      county.uats.sort((a, b) => a.siruta - b.siruta);
      this.counties.push(county);
    }
    this.counties.sort((a, b) => a.workspaceId - b.workspaceId);
    this.uats.sort((a, b) => a.siruta - b.siruta);
    this.uats.forEach((u, i) => {
      u.ordinal = i;
      this.bySiruta.set(u.siruta, u);
    });
    for (const c of this.counties) this.byWorkspace.set(c.workspaceId, c);
  }

  uat(siruta: number): Uat | undefined {
    return this.bySiruta.get(siruta);
  }

  county(workspaceId: number): County | undefined {
    return this.byWorkspace.get(workspaceId);
  }

  /** The UAT boundary in EPSG:3844 (ESRI-oriented rings), its bbox and area in m². */
  projected(uat: Uat): NonNullable<Uat['projected']> {
    if (!uat.projected) {
      const polys = uat.wgs84.map((poly) => poly.map((ring) => ring.map((p) => toStereo70(p))));
      const rings = esriOrient(polys);
      let area = 0;
      for (const r of rings) area -= signedArea(r); // clockwise outer rings are negative
      uat.projected = { rings, bbox: bboxOf(rings), area };
    }
    return uat.projected;
  }
}
