/**
 * Which UATs hold data at a scale, and their lazily generated, cached datasets. At `national`
 * scale only a bounded number of untouched UATs stay in memory; a UAT changed through
 * /__sim/mutate is pinned so its changes survive eviction.
 */
import { hashSeed } from '../shared/prng';
import { generateUat, uatTarget } from './generator';
import type { UatData } from './model';
import type { Nomenclature, Uat } from './nomenclature';

export const SCALES = ['demo', 'bench', 'national'] as const;
export type Scale = (typeof SCALES)[number];

/** Covasna, Brăila, Ilfov: three small counties, about 52,600 parcels together. */
export const DEMO_WORKSPACES = [145, 92, 234];
/** Cluj-Napoca: a real city boundary large enough for 200,000 plots. */
export const BENCH_SIRUTA = 54975;
export const BENCH_PARCELS = 200_000;
const NATIONAL_CACHE_UATS = 300;

export function parseScale(s: string | undefined, fallback: Scale = 'demo'): Scale {
  if (s === undefined || s === '') return fallback;
  if ((SCALES as readonly string[]).includes(s)) return s as Scale;
  throw new Error(`Scară necunoscută: ${s} (demo, bench sau national)`);
}

export function parseSeed(seed: number | string | undefined, fallback: number): number {
  if (seed === undefined || seed === '') return fallback;
  if (typeof seed === 'number' && Number.isFinite(seed)) return seed >>> 0;
  const n = Number(seed);
  return Number.isInteger(n) ? n >>> 0 : hashSeed(String(seed));
}

export class SimStore {
  private readonly cache = new Map<number, UatData>();
  private readonly pinned = new Set<number>();
  private readonly dataSirutas: Set<number>;
  /** Bumped by every mutation, so cached query results know they are stale. */
  version = 0;

  constructor(
    readonly nom: Nomenclature,
    readonly seed: number,
    readonly scale: Scale,
  ) {
    const list =
      scale === 'bench'
        ? [BENCH_SIRUTA]
        : scale === 'demo'
          ? DEMO_WORKSPACES.flatMap((ws) => nom.county(ws)?.uats.map((u) => u.siruta) ?? [])
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
    return this.scale === 'bench' ? BENCH_PARCELS : uatTarget(uat);
  }

  /** The UAT's data, generated on first use; null for a UAT without data at this scale. */
  get(siruta: number): UatData | null {
    if (!this.dataSirutas.has(siruta)) return null;
    const hit = this.cache.get(siruta);
    if (hit) {
      if (this.scale === 'national') {
        this.cache.delete(siruta);
        this.cache.set(siruta, hit);
      }
      return hit;
    }
    const uat = this.nom.uat(siruta);
    if (!uat) return null;
    const data = generateUat(this.nom, uat, { seed: this.seed, target: this.target(uat) });
    this.cache.set(siruta, data);
    if (this.scale === 'national') this.evict();
    return data;
  }

  pin(siruta: number): void {
    this.pinned.add(siruta);
  }

  private evict(): void {
    for (const key of this.cache.keys()) {
      if (this.cache.size - this.pinned.size <= NATIONAL_CACHE_UATS) return;
      if (!this.pinned.has(key)) this.cache.delete(key);
    }
  }

  cachedCount(): number {
    return this.cache.size;
  }
}
