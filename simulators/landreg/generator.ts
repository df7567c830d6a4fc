/**
 * Deterministic synthetic cadastre of one UAT over its real boundary. Everything is laid out in
 * a rotated local frame (so the street grid is not north-aligned) and only rectangles that lie
 * wholly inside the boundary are kept, which keeps parcels inside their UAT and non-overlapping
 * by construction:
 *   intravilan zone (one per village) → street grid → blocks → two rows of parcels per block
 *   → buildings inside parcels; outside the zones, "tarlale" (field blocks) cut into long strips.
 */
import { Prng, hashSeed } from '../shared/prng';
import { Frame, bboxOf, edgesOf, pointInRings, rectInside, rectsOverlap, type BBox, type Edge, type Ring } from './geometry';
import type { Nomenclature, Uat } from './nomenclature';
import type { LayerData, SimFeature, SimImmovable, StructuredAddress, UatData, UseCategory } from './model';
import { STREET_NAMES, STREET_TYPES } from './names';
import { LAYER_BUILDINGS, LAYER_INTRAVILAN, LAYER_PARCELS, LAYER_STREETS, LAYER_UAT } from './layers';

/** The cadastral number every data UAT carries (spec 2.1: one value on 232 features in different UATs). */
export const REPEATED_CADASTRAL_REF = '1000';
/** OBJECTID / immovablePk range of a UAT: (ordinal + 1) * this, so lazily generated UATs never collide. */
export const ID_BLOCK = 400_000;

const DAY = 86_400_000;
const DATA_START = Date.UTC(2012, 0, 1);
const DATA_END = Date.UTC(2025, 8, 30);

interface Zone {
  rect: BBox;
  localityIdx: number;
}

interface ParcelDraft {
  rect: BBox;
  kind: 'urban' | 'agri';
  address: StructuredAddress | null;
  tarla?: number;
  parcela?: number;
  localityIdx: number;
  /** Urban plots face the street on their low-v side (true) or high-v side. */
  frontLow: boolean;
}

interface StreetDraft {
  path: [number, number][];
  type: { code: string; name: string };
  name: string;
}

export function uatTarget(uat: Uat): number {
  switch (uat.type) {
    case 1:
      return 2400;
    case 4:
    case 6:
      return 1600;
    case 2:
    case 5:
      return 900;
    default:
      return 300;
  }
}

/**
 * Parcels of a UAT at `slice` scale: a realistic density derived from what the nomenclature knows
 * (no population in SIRUTA): the UAT's type (TIP), its area and its villages. A commune has a
 * built-up core per village (about 220 plots each) and agricultural strips over its land (40 a
 * km²); towns and cities are dense over their whole area. Calibrated so the 3,186 UATs total about
 * 16 M parcels, the country's figure (docs/simulators.md); bounded by what one UAT's ids and
 * generation can hold.
 */
export const SLICE_DENSITY = {
  /** Parcels a km² by SIRUTA TIP: county-seat municipality, town, commune, municipality, county-seat town, Bucharest sector. */
  perKm2: { 1: 350, 2: 100, 3: 40, 4: 150, 5: 100, 6: 1000 } as Record<number, number>,
  /** Built-up plots of each village of a commune. */
  perCommuneVillage: 220,
  min: 300,
  max: 200_000,
} as const;

export function sliceTarget(uat: Uat, areaM2: number): number {
  const km2 = areaM2 / 1e6;
  const perKm2 = SLICE_DENSITY.perKm2[uat.type] ?? SLICE_DENSITY.perKm2[3];
  const villages = uat.type === 3 ? uat.localities.length * SLICE_DENSITY.perCommuneVillage : 0;
  return Math.max(SLICE_DENSITY.min, Math.min(SLICE_DENSITY.max, Math.round(km2 * perKm2 + villages)));
}

function urbanShare(uat: Uat, target: number): number {
  if (target >= 50_000) return 0.8;
  if (uat.type === 1 || uat.type === 4 || uat.type === 6) return 0.85;
  if (uat.type === 2 || uat.type === 5) return 0.75;
  return 0.6;
}

function flat(ring: Ring): Float64Array {
  const a = new Float64Array(ring.length * 2);
  ring.forEach(([x, y], i) => {
    a[i * 2] = x;
    a[i * 2 + 1] = y;
  });
  return a;
}

function flatArea(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length - 2; i += 2) s += a[i] * a[i + 3] - a[i + 2] * a[i + 1];
  return Math.abs(s / 2);
}

function randomDate(rng: Prng, from = DATA_START, to = DATA_END): number {
  return Math.floor(rng.range(from, to) / 1000) * 1000;
}

class Layout {
  readonly zones: Zone[] = [];
  readonly tarlale: BBox[] = [];
  readonly parcels: ParcelDraft[] = [];
  readonly streets: StreetDraft[] = [];
  readonly spare: BBox[] = [];
  private readonly localRings: Ring[];
  private readonly edges: Edge[];
  private readonly localBox: BBox;

  constructor(
    private readonly rng: Prng,
    readonly frame: Frame,
    worldRings: Ring[],
  ) {
    this.localRings = worldRings.map((r) => r.map(([x, y]) => frame.toLocal(x, y)));
    this.edges = edgesOf(this.localRings);
    this.localBox = bboxOf(this.localRings);
  }

  private randomInside(): [number, number] {
    const b = this.localBox;
    for (let i = 0; i < 2000; i++) {
      const u = this.rng.range(b.minX, b.maxX);
      const v = this.rng.range(b.minY, b.maxY);
      if (pointInRings(u, v, this.localRings)) return [u, v];
    }
    return [(b.minX + b.maxX) / 2, (b.minY + b.maxY) / 2];
  }

  private fits(rect: BBox, margin: number): boolean {
    for (const z of this.zones) if (rectsOverlap(rect, z.rect, margin)) return false;
    for (const t of this.tarlale) if (rectsOverlap(rect, t, 4)) return false;
    return rectInside(rect, this.localRings, this.edges);
  }

  /** Places an intravilan zone holding n parcels; shrinks the plots until it fits. Returns parcels placed. */
  placeZone(n: number, localityIdx: number): number {
    const rng = this.rng;
    const baseW = rng.range(14, 22);
    const baseD = rng.range(28, 45);
    const m = rng.int(6, 12);
    for (let f = 1; f > 0.2; f *= 0.85) {
      const w = baseW * f;
      const d = baseD * f;
      const s = Math.max(6, 10 * f);
      const L = m * w;
      const blocks = Math.ceil(n / (2 * m));
      const cols = Math.max(1, Math.ceil(Math.sqrt((blocks * (2 * d + s)) / (L + s))));
      const rows = Math.ceil(blocks / cols);
      const W = cols * (L + s) + s;
      const H = rows * (2 * d + s) + s;
      for (let attempt = 0; attempt < 120; attempt++) {
        const [cu, cv] = this.randomInside();
        const rect = { minX: cu - W / 2, minY: cv - H / 2, maxX: cu + W / 2, maxY: cv + H / 2 };
        if (!this.fits(rect, 60)) continue;
        this.zones.push({ rect, localityIdx });
        return this.fillZone(rect, { w, d, s, L, m, cols, rows, n, localityIdx });
      }
    }
    return 0;
  }

  private fillZone(
    rect: BBox,
    g: { w: number; d: number; s: number; L: number; m: number; cols: number; rows: number; n: number; localityIdx: number },
  ): number {
    const rng = this.rng;
    const { d, s, L, m, cols, rows, n, localityIdx } = g;
    // Streets: one named street per grid line; parcels take the number of the street they face.
    const hStreets: StreetDraft[] = [];
    for (let j = 0; j <= rows; j++) {
      const v = rect.minY + s / 2 + j * (2 * d + s);
      const st = { path: [[rect.minX, v], [rect.maxX, v]] as [number, number][], type: rng.weighted(STREET_TYPES), name: rng.pick(STREET_NAMES) };
      hStreets.push(st);
      this.streets.push(st);
    }
    for (let i = 0; i <= cols; i++) {
      const u = rect.minX + s / 2 + i * (L + s);
      this.streets.push({ path: [[u, rect.minY], [u, rect.maxY]], type: rng.weighted(STREET_TYPES), name: rng.pick(STREET_NAMES) });
    }
    const numbers = hStreets.map(() => ({ odd: 1, even: 2 }));
    let placed = 0;
    for (let j = 0; j < rows; j++) {
      for (let i = 0; i < cols; i++) {
        const u0 = rect.minX + s + i * (L + s);
        const v0 = rect.minY + s + j * (2 * d + s);
        for (let row = 0; row < 2; row++) {
          const widths = Array.from({ length: m }, () => rng.range(0.7, 1.3));
          const sum = widths.reduce((a, b) => a + b, 0);
          let u = u0;
          const facing = row === 0 ? j : j + 1;
          for (let k = 0; k < m; k++) {
            const pw = (widths[k] / sum) * L;
            const r = { minX: u, minY: v0 + row * d, maxX: u + pw, maxY: v0 + (row + 1) * d };
            u += pw;
            if (placed >= n) {
              this.spare.push(r);
              continue;
            }
            const st = hStreets[facing];
            const num = row === 0 ? numbers[facing].even : numbers[facing].odd;
            if (row === 0) numbers[facing].even += 2;
            else numbers[facing].odd += 2;
            const address: StructuredAddress = { streetType: st.type, streetName: st.name, postalNumber: String(num), localityIdx };
            if (rng.chance(0.05)) address.postalNumber += rng.pick(['A', 'B', 'bis']);
            if (rng.chance(0.04)) Object.assign(address, { entrance: 'A', floor: String(rng.int(1, 4)), unit: String(rng.int(1, 20)) });
            this.parcels.push({ rect: r, kind: 'urban', address, localityIdx, frontLow: row === 0 });
            placed++;
          }
        }
      }
    }
    return placed;
  }

  /** Places field blocks cut into strips until `n` agricultural parcels exist or space runs out. */
  placeFields(n: number, localityCount: number): void {
    const rng = this.rng;
    let placed = 0;
    let tarla = 1;
    for (let g = 1; g > 0.15 && placed < n; g *= 0.7) {
      let misses = 0;
      while (placed < n && misses < 300) {
        const k = rng.int(8, 30);
        const widths = Array.from({ length: k }, () => rng.range(15, 60) * g);
        const W = widths.reduce((a, b) => a + b, 0);
        const H = rng.range(150, 450) * g;
        const [cu, cv] = this.randomInside();
        const rect = { minX: cu - W / 2, minY: cv - H / 2, maxX: cu + W / 2, maxY: cv + H / 2 };
        if (!this.fits(rect, 40)) {
          misses++;
          continue;
        }
        this.tarlale.push(rect);
        let u = rect.minX;
        widths.forEach((pw, idx) => {
          const r = { minX: u, minY: rect.minY, maxX: u + pw, maxY: rect.maxY };
          u += pw;
          if (placed >= n) {
            this.spare.push(r);
            return;
          }
          this.parcels.push({ rect: r, kind: 'agri', address: null, tarla, parcela: idx + 1, localityIdx: rng.int(0, localityCount - 1), frontLow: true });
          placed++;
        });
        tarla++;
      }
    }
  }
}

const USE_URBAN: ReadonlyArray<readonly [[string, string], number]> = [
  [['CC', 'curți construcții'], 80],
  [['A', 'arabil'], 12],
  [['L', 'livezi'], 4],
  [['VI', 'vii'], 4],
];
const USE_AGRI: ReadonlyArray<readonly [[string, string], number]> = [
  [['A', 'arabil'], 60],
  [['P', 'pășuni'], 15],
  [['F', 'fânețe'], 10],
  [['VI', 'vii'], 5],
  [['L', 'livezi'], 4],
  [['PD', 'păduri'], 4],
  [['N', 'neproductiv'], 2],
];

function useCategories(rng: Prng, kind: 'urban' | 'agri' | 'nogeom', area: number, intravilan: boolean): UseCategory[] {
  const table = kind === 'urban' ? USE_URBAN : USE_AGRI;
  const [code, name] = rng.weighted(table);
  if (kind === 'urban' && code === 'CC' && rng.chance(0.35)) {
    const cc = Math.round(area * rng.range(0.3, 0.7));
    return [
      { code: 'CC', name: 'curți construcții', area: cc, intravilan },
      { code: 'A', name: 'arabil', area: Math.round(area) - cc, intravilan },
    ];
  }
  return [{ code, name, area: Math.round(area), intravilan }];
}

export interface GenerateOptions {
  seed: number;
  target: number;
}

export function generateUat(nom: Nomenclature, uat: Uat, opts: GenerateOptions): UatData {
  const started = performance.now();
  const rng = new Prng(hashSeed(opts.seed, 'uat', uat.siruta));
  const proj = nom.projected(uat);
  // Origin inside the UAT, rotation up to ±35°: every UAT gets its own street orientation.
  const b = proj.bbox;
  let ox = (b.minX + b.maxX) / 2;
  let oy = (b.minY + b.maxY) / 2;
  for (let i = 0; i < 500; i++) {
    const x = rng.range(b.minX, b.maxX);
    const y = rng.range(b.minY, b.maxY);
    if (pointInRings(x, y, proj.rings)) {
      ox = x;
      oy = y;
      break;
    }
  }
  const frame = new Frame(ox, oy, rng.range(-0.6, 0.6));
  const layout = new Layout(rng, frame, proj.rings);

  const target = opts.target;
  const urban = Math.round(target * urbanShare(uat, target));
  const zoneCount = Math.max(1, Math.min(uat.localities.length, target >= 50_000 ? 3 : uat.type === 3 ? 4 : 2));
  const mainShare = zoneCount === 1 ? 1 : rng.range(0.5, 0.7);
  let urbanPlaced = 0;
  for (let z = 0; z < zoneCount; z++) {
    const share = z === 0 ? mainShare : (1 - mainShare) / (zoneCount - 1);
    const n = z === zoneCount - 1 ? urban - urbanPlaced : Math.round(urban * share);
    urbanPlaced += layout.placeZone(n, z);
  }
  layout.placeFields(target - urbanPlaced, uat.localities.length);
  // A crowded UAT (bench: 200,000 parcels in one city) can run out of room for fields: fill the
  // rest with further, denser built-up zones so the parcel count is what was asked for.
  for (let extra = 0; layout.parcels.length < target && extra < 80; extra++) {
    layout.placeZone(Math.min(4000, target - layout.parcels.length), extra % uat.localities.length);
  }

  const base = (uat.ordinal + 1) * ID_BLOCK;
  const data: UatData = {
    siruta: uat.siruta,
    workspaceId: uat.workspaceId,
    layers: new Map(),
    immovables: [],
    immovableByPk: new Map(),
    nextImmovablePk: base + 1,
    spareParcels: [],
    nextCadastralNumber: 0,
    generatedMs: 0,
  };
  const common = (objectId: number, validFrom: number) => ({
    OBJECTID: objectId,
    ADMIN_UNIT_ID: uat.siruta,
    WORKSPACE_ID: uat.workspaceId,
    VALID_FROM: validFrom,
    LAST_UPDATED_DTM: Math.min(DATA_END, validFrom + rng.int(0, 400) * DAY),
  });

  // LIMITE_UAT: the real boundary.
  const uatLayer: LayerData = { features: [], nextObjectId: base + 2 };
  const uatValid = randomDate(rng, DATA_START, Date.UTC(2016, 0, 1));
  uatLayer.features.push({
    objectId: base + 1,
    attributes: { ...common(base + 1, uatValid), NAME: uat.name, COUNTY: uat.countyName, AREA_VALUE: Math.round(proj.area) },
    parts: proj.rings.map(flat),
  });
  data.layers.set(LAYER_UAT, uatLayer);

  // LIMITE_INTRAV_DYNAMIC: one zone per village.
  const intravLayer: LayerData = { features: [], nextObjectId: base + 1 };
  for (const z of layout.zones) {
    const id = intravLayer.nextObjectId++;
    const ring = frame.rectRing(z.rect);
    intravLayer.features.push({
      objectId: id,
      attributes: { ...common(id, randomDate(rng)), NAME: uat.localities[z.localityIdx]?.name ?? uat.name, AREA_VALUE: Math.round(flatArea(flat(ring))) },
      parts: [flat(ring)],
    });
  }
  data.layers.set(LAYER_INTRAVILAN, intravLayer);

  // STRAZI: street centre lines.
  const streetLayer: LayerData = { features: [], nextObjectId: base + 1 };
  for (const st of layout.streets) {
    const id = streetLayer.nextObjectId++;
    const path = st.path.map(([u, v]) => frame.toWorld(u, v));
    streetLayer.features.push({
      objectId: id,
      attributes: { ...common(id, randomDate(rng)), STREET_TYPE: st.type.name, STREET_NAME: st.name },
      parts: [flat(path)],
    });
  }
  data.layers.set(LAYER_STREETS, streetLayer);

  // Cadastral numbers: sequential per UAT from a UAT-specific start, with the odd gap.
  let cad = rng.pick([1, 20_001, 50_001, 100_001, 300_001]) + rng.int(0, 5000);
  const nextCad = () => {
    if (rng.chance(0.05)) cad += rng.int(1, 6);
    return String(cad++);
  };

  const parcels: LayerData = { features: [], nextObjectId: base + 1 };
  const buildings: LayerData = { features: [], nextObjectId: base + 1 };
  const repeatAt = new Set<number>([0]);
  if (rng.chance(0.7) && layout.parcels.length > 1) repeatAt.add(rng.int(1, layout.parcels.length - 1));

  layout.parcels.forEach((p, idx) => {
    const objectId = parcels.nextObjectId++;
    const pk = data.nextImmovablePk++;
    const cadRef = repeatAt.has(idx) ? REPEATED_CADASTRAL_REF : nextCad();
    const validFrom = randomDate(rng);
    const ring = rng.chance(0.002) ? frame.bowTieRing(p.rect) : frame.rectRing(p.rect);
    const geomArea = (p.rect.maxX - p.rect.minX) * (p.rect.maxY - p.rect.minY);
    const legalArea = Math.round(geomArea * rng.range(0.97, 1.03));
    const nullGeometry = rng.chance(0.003);
    parcels.features.push({
      objectId,
      attributes: {
        ...common(objectId, validFrom),
        NATIONAL_CADASTRAL_REFERENCE: cadRef,
        NATIONAL_CADNR: Number(cadRef),
        INSPIRE_ID: `RO.ANCPI.CP.${objectId}`,
        IMMOVABLE_ID: pk,
        AREA_VALUE: legalArea,
        IS_ACTIVE: 1,
      },
      parts: nullGeometry ? null : [flat(ring)],
    });
    const intravilan = p.kind === 'urban';
    const areasKnown = !rng.chance(0.06);
    const imm: SimImmovable = {
      immovablePk: pk,
      kind: p.kind,
      cadastralNumber: cadRef,
      landbookNo: rng.chance(0.85) ? cadRef : String(rng.int(1000, 99_999)),
      oldLandbookNo: rng.chance(0.3) ? `${rng.int(100, 9999)}` : null,
      topoNo: p.kind === 'agri' ? `${p.tarla}/${p.parcela}` : rng.chance(0.3) ? `${rng.int(100, 3000)}/${rng.int(1, 20)}` : null,
      intravilan,
      measuredArea: areasKnown ? Math.round(geomArea) : null,
      legalArea: areasKnown ? legalArea : null,
      useCategories: useCategories(rng, p.kind, legalArea, intravilan),
      address: p.address && !rng.chance(0.08) ? p.address : null,
      freeTextAddress: null,
      objectId,
      buildingRefs: [],
      revision: 0,
      validFrom,
    };
    if (!imm.address) {
      const loc = uat.localities[p.localityIdx]?.name ?? uat.name;
      imm.freeTextAddress =
        p.kind === 'agri'
          ? `Extravilan ${loc}, Tarla ${p.tarla}, Parcela ${p.parcela}`
          : `Sat ${loc}, nr. ${p.address?.postalNumber ?? rng.int(1, 400)}, jud. ${uat.countyName}`;
    }
    // Buildings: a house on most plots, a shed behind some, the odd barn in the fields.
    const w = p.rect.maxX - p.rect.minX;
    const d = p.rect.maxY - p.rect.minY;
    const houses: BBox[] = [];
    if (p.kind === 'urban' && rng.chance(0.7)) {
      const bw = w * rng.range(0.4, 0.7);
      const bd = Math.min(d * 0.45, rng.range(8, 15));
      const u0 = p.rect.minX + rng.range(0.1, 0.9) * (w - bw);
      // The house stands near the street, the shed near the back fence.
      const v0 = p.frontLow ? p.rect.minY + d * 0.08 : p.rect.maxY - d * 0.08 - bd;
      houses.push({ minX: u0, minY: v0, maxX: u0 + bw, maxY: v0 + bd });
      if (rng.chance(0.25)) {
        const sw = w * rng.range(0.2, 0.4);
        const sd = Math.min(6, d * 0.2);
        const su = p.rect.minX + rng.range(0.1, 0.9) * (w - sw);
        const sv = p.frontLow ? p.rect.maxY - d * 0.05 - sd : p.rect.minY + d * 0.05;
        houses.push({ minX: su, minY: sv, maxX: su + sw, maxY: sv + sd });
      }
    } else if (p.kind === 'agri' && rng.chance(0.02)) {
      const cu = (p.rect.minX + p.rect.maxX) / 2;
      const cv = (p.rect.minY + p.rect.maxY) / 2;
      const half = Math.min(w * 0.3, 6);
      houses.push({ minX: cu - half, minY: cv - half, maxX: cu + half, maxY: cv + half });
    }
    houses.forEach((h, i) => {
      const id = buildings.nextObjectId++;
      const ref = `${cadRef}-C${i + 1}`;
      imm.buildingRefs.push(ref);
      const bRing = frame.rectRing(h);
      buildings.features.push({
        objectId: id,
        attributes: {
          ...common(id, Math.max(validFrom, randomDate(rng))),
          NATIONAL_CADASTRAL_REFERENCE: ref,
          IMMOVABLE_ID: pk,
          BUILDING_NO: `C${i + 1}`,
          IS_LEGAL: rng.chance(0.85) ? 1 : 0,
          AREA_VALUE: Math.round((h.maxX - h.minX) * (h.maxY - h.minY)),
        },
        parts: [flat(bRing)],
      });
    });
    data.immovables.push(imm);
  });
  data.layers.set(LAYER_PARCELS, parcels);
  data.layers.set(LAYER_BUILDINGS, buildings);

  // Immovables the portal lists without any geometry in the parcel layer (5-15%).
  const noGeom = Math.round(layout.parcels.length * rng.range(0.05, 0.15));
  for (let i = 0; i < noGeom; i++) {
    const pk = data.nextImmovablePk++;
    const cadRef = nextCad();
    const area = Math.round(rng.range(200, 20_000));
    const intravilan = rng.chance(0.4);
    const known = !rng.chance(0.3);
    data.immovables.push({
      immovablePk: pk,
      kind: 'nogeom',
      cadastralNumber: cadRef,
      landbookNo: cadRef,
      oldLandbookNo: rng.chance(0.5) ? `${rng.int(100, 9999)}` : null,
      topoNo: rng.chance(0.5) ? `${rng.int(1, 200)}/${rng.int(1, 90)}` : null,
      intravilan,
      measuredArea: known ? area : null,
      legalArea: known && rng.chance(0.7) ? area : null,
      useCategories: useCategories(rng, 'nogeom', area, intravilan),
      address: null,
      freeTextAddress: `${intravilan ? 'Intravilan' : 'Extravilan'} ${rng.pick(uat.localities).name}, ${rng.chance(0.5) ? `nr. ${rng.int(1, 300)}` : `Tarla ${rng.int(1, 80)}, Parcela ${rng.int(1, 60)}`}`,
      objectId: null,
      buildingRefs: [],
      revision: 0,
      validFrom: randomDate(rng),
    });
  }
  for (const imm of data.immovables) data.immovableByPk.set(imm.immovablePk, imm);
  data.spareParcels = layout.spare.map((r) => flat(frame.rectRing(r)));
  data.nextCadastralNumber = cad;
  data.generatedMs = Math.round(performance.now() - started);
  return data;
}

/** A fresh feature record for /__sim/mutate add (kept here so attribute names stay in one place). */
export function parcelAttributes(
  uat: Uat,
  objectId: number,
  immovablePk: number,
  cadRef: string,
  area: number,
  now: number,
): SimFeature['attributes'] {
  return {
    OBJECTID: objectId,
    ADMIN_UNIT_ID: uat.siruta,
    WORKSPACE_ID: uat.workspaceId,
    VALID_FROM: now,
    LAST_UPDATED_DTM: now,
    NATIONAL_CADASTRAL_REFERENCE: cadRef,
    NATIONAL_CADNR: Number(cadRef),
    INSPIRE_ID: `RO.ANCPI.CP.${objectId}`,
    IMMOVABLE_ID: immovablePk,
    AREA_VALUE: Math.round(area),
    IS_ACTIVE: 1,
  };
}

export { flatArea };
