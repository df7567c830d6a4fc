/**
 * Which UATs hold data at a scale, and their lazily generated, cached datasets. At `national`
 * and `slice` scale only a bounded number of untouched UATs (national) or parcels (slice) stay in
 * memory, the least recently used evicted first; a UAT changed through /__sim/mutate is pinned so
 * its changes survive eviction.
 */
import type { ResetBody } from '../shared/control';
import { hashSeed } from '../shared/prng';
import { simSettings } from '../shared/settings';
import { generateUat, sliceTarget, uatTarget } from './generator';
import { LAYER_PARCELS } from './layers';
import type { UatData } from './model';
import type { Nomenclature, Uat } from './nomenclature';

export const SCALES = ['demo', 'bench', 'national', 'slice'] as const;
export type Scale = (typeof SCALES)[number];

/** Covasna, Brăila, Ilfov: three small counties, about 52,600 parcels together. */
export const DEMO_WORKSPACES = [145, 92, 234];
/** Cluj-Napoca: a real city boundary large enough for 200,000 plots. */
export const BENCH_SIRUTA = 54975;
export const BENCH_PARCELS = 200_000;
const NATIONAL_CACHE_UATS = 300;
/**
 * The country slice (issue 32, `npm run bench -- scale`): four whole counties, 275 UATs, about
 * 2.0 M parcels at the densities of `sliceTarget` — Alba, Caraș-Severin, Hunedoara, Tulcea.
 */
export const SLICE_COUNTIES = [10, 118, 207, 369];
/**
 * Parcels of unpinned slice UATs kept generated (about 1.6 KB of heap a parcel with its buildings
 * and immovables, so ~1 GB): more than the largest slice county (515,000), so the county plan's
 * grouped queries, which walk a whole county, generate each of its UATs once.
 */
const SLICE_CACHE_PARCELS = 600_000;

function parseScale(s: string | undefined, fallback: Scale = 'demo'): Scale {
  if (s === undefined || s === '') return fallback;
  if ((SCALES as readonly string[]).includes(s)) return s as Scale;
  throw new Error(`Scară necunoscută: ${s} (demo, bench, national sau slice)`);
}

function parseSeed(seed: number | string | undefined, fallback: number): number {
  if (seed === undefined || seed === '') return fallback;
  if (typeof seed === 'number' && Number.isFinite(seed)) return seed >>> 0;
  const n = Number(seed);
  return Number.isInteger(n) ? n >>> 0 : hashSeed(String(seed));
}

/**
 * The stores of a simulator over the generated data: the first from its options (the settings'
 * seed and scale where they name none), each `/__sim/reset` body's from its seed and scale (the
 * first ones where it names none).
 */
export function storeMaker(nom: Nomenclature, opts: { seed?: number | string; scale?: Scale | string }): (reset?: ResetBody) => SimStore {
  const seed = parseSeed(opts.seed, simSettings.landreg.seed);
  const scale = parseScale(opts.scale === undefined ? undefined : String(opts.scale), parseScale(simSettings.landreg.scale));
  return (reset = {}) => new SimStore(nom, parseSeed(reset.seed, seed), parseScale(reset.scale, scale));
}

export class SimStore {
  private readonly cache = new Map<number, UatData>();
  /** Parcels of the cached, unpinned UATs (slice eviction). */
  private cachedParcels = 0;
  private readonly pinned = new Set<number>();
  private readonly dataSirutas: Set<number>;
  /** Bumped by every mutation, so cached query results know they are stale. */
  version = 0;

  constructor(
    readonly nom: Nomenclature,
    readonly seed: number,
    readonly scale: Scale,
    private readonly sliceCacheParcels = SLICE_CACHE_PARCELS,
  ) {
    const list =
      scale === 'bench'
        ? [BENCH_SIRUTA]
        : scale === 'demo' || scale === 'slice'
          ? (scale === 'demo' ? DEMO_WORKSPACES : SLICE_COUNTIES).flatMap((ws) => nom.county(ws)?.uats.map((u) => u.siruta) ?? [])
          : nom.uats.map((u) => u.siruta);
    this.dataSirutas = new Set(list);
  }

  hasData(siruta: number): boolean {
    return this.dataSirutas.has(siruta);
  }

  /** The UATs that hold data, by SIRUTA. */
  dataUats(): Uat[] {
    return this.nom.uats.filter((u) => this.dataSirutas.has(u.siruta));
  }

  target(uat: Uat): number {
    if (this.scale === 'bench') return BENCH_PARCELS;
    return this.scale === 'slice' ? sliceTarget(uat, this.nom.projected(uat).area) : uatTarget(uat);
  }

  private get evicting(): boolean {
    return this.scale === 'national' || this.scale === 'slice';
  }

  /** The UAT's data, generated on first use; null for a UAT without data at this scale. */
  get(siruta: number): UatData | null {
    if (!this.dataSirutas.has(siruta)) return null;
    const hit = this.cache.get(siruta);
    if (hit) {
      if (this.evicting) {
        this.cache.delete(siruta);
        this.cache.set(siruta, hit);
      }
      return hit;
    }
    const uat = this.nom.uat(siruta);
    if (!uat) return null;
    const data = generateUat(this.nom, uat, { seed: this.seed, target: this.target(uat) });
    this.cache.set(siruta, data);
    if (!this.pinned.has(siruta)) this.cachedParcels += parcelsOf(data);
    if (this.evicting) this.evict(siruta);
    return data;
  }

  pin(siruta: number): void {
    const data = this.cache.get(siruta);
    if (data && !this.pinned.has(siruta)) this.cachedParcels -= parcelsOf(data);
    this.pinned.add(siruta);
  }

  /** Least recently used first; the UAT just generated (`keep`) stays whatever its size. */
  private evict(keep: number): void {
    const full = () =>
      this.scale === 'slice' ? this.cachedParcels > this.sliceCacheParcels : this.cache.size - this.pinned.size > NATIONAL_CACHE_UATS;
    for (const [key, data] of this.cache) {
      if (!full()) return;
      if (key === keep || this.pinned.has(key)) continue;
      this.cache.delete(key);
      this.cachedParcels -= parcelsOf(data);
    }
  }

  cachedCount(): number {
    return this.cache.size;
  }
}

function parcelsOf(data: UatData): number {
  return data.layers.get(LAYER_PARCELS)?.features.length ?? 0;
}
