/**
 * The central store as the central API simulator sees it: the landreg simulator's parcels and
 * buildings (same generator, same seed, so the same cadastral numbers and areas), each with a
 * stable uuid derived from its key (layerId, siruta, objectId), and an index by cadastral
 * reference in nomenclature order, which is the order the search answers in.
 */
import { createHash } from 'node:crypto';
import type { UatData, SimFeature, SimImmovable } from '../landreg/model';
import type { Uat } from '../landreg/nomenclature';
import type { SimStore } from '../landreg/store';
import { LAYER_BUILDINGS, LAYER_PARCELS } from '../landreg/layers';

export const CENTRAL_LAYERS = [LAYER_PARCELS, LAYER_BUILDINGS] as const;

export interface CatalogEntry {
  id: string;
  layerId: string;
  siruta: number;
  objectId: number;
  cadastralRef: string;
}

/** A name-based uuid (version 5 layout over SHA-256): the same feature always gets the same id. */
export function featureUuid(layerId: string, siruta: number, objectId: number): string {
  const h = createHash('sha256').update(`central:${layerId}:${siruta}:${objectId}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export interface ResolvedFeature {
  entry: CatalogEntry;
  uat: Uat;
  data: UatData;
  feature: SimFeature;
  /** The immovable behind a parcel, or behind a building's parcel. */
  immovable: SimImmovable | null;
}

/** Lookups of one UAT's generated data, built on its first use (a bench-scale UAT holds 200,000 parcels). */
interface UatIndex {
  features: Map<string, Map<number, SimFeature>>;
  buildingsByImmovable: Map<number, SimFeature[]>;
}

function indexUat(data: UatData): UatIndex {
  const features = new Map<string, Map<number, SimFeature>>();
  for (const layerId of CENTRAL_LAYERS) features.set(layerId, new Map((data.layers.get(layerId)?.features ?? []).map((f) => [f.objectId, f])));
  const buildingsByImmovable = new Map<number, SimFeature[]>();
  for (const b of data.layers.get(LAYER_BUILDINGS)?.features ?? []) {
    const pk = b.attributes.IMMOVABLE_ID;
    if (typeof pk !== 'number') continue;
    const list = buildingsByImmovable.get(pk);
    if (list) list.push(b);
    else buildingsByImmovable.set(pk, [b]);
  }
  return { features, buildingsByImmovable };
}

export class CentralCatalog {
  private readonly byId = new Map<string, CatalogEntry>();
  private readonly byRef = new Map<string, CatalogEntry[]>();
  // Keyed by the data object: a store that regenerates a UAT (national scale) gets a new index.
  private readonly indexes = new WeakMap<UatData, UatIndex>();

  private index(data: UatData): UatIndex {
    let ix = this.indexes.get(data);
    if (!ix) this.indexes.set(data, (ix = indexUat(data)));
    return ix;
  }

  /** The buildings standing on an immovable's parcel. */
  buildingsOf(data: UatData, immovablePk: number): SimFeature[] {
    return this.index(data).buildingsByImmovable.get(immovablePk) ?? [];
  }

  constructor(readonly store: SimStore) {
    for (const uat of store.dataUats()) {
      const data = store.get(uat.siruta);
      if (!data) continue;
      for (const layerId of CENTRAL_LAYERS) {
        for (const f of data.layers.get(layerId)?.features ?? []) {
          const ref = f.attributes.NATIONAL_CADASTRAL_REFERENCE;
          if (typeof ref !== 'string') continue;
          const entry: CatalogEntry = { id: featureUuid(layerId, uat.siruta, f.objectId), layerId, siruta: uat.siruta, objectId: f.objectId, cadastralRef: ref };
          this.byId.set(entry.id, entry);
          const list = this.byRef.get(ref);
          if (list) list.push(entry);
          else this.byRef.set(ref, [entry]);
        }
      }
    }
  }

  get size(): number {
    return this.byId.size;
  }

  /** Every feature carrying the reference, in nomenclature order (no siruta filter, as upstream). */
  byCadastralRef(ref: string): CatalogEntry[] {
    return this.byRef.get(ref.trim()) ?? [];
  }

  resolve(id: string): ResolvedFeature | null {
    const entry = this.byId.get(id);
    if (!entry) return null;
    const data = this.store.get(entry.siruta);
    const uat = this.store.nom.uat(entry.siruta);
    const feature = data ? this.index(data).features.get(entry.layerId)?.get(entry.objectId) : undefined;
    if (!data || !uat || !feature) return null;
    const pk = feature.attributes.IMMOVABLE_ID;
    const immovable = typeof pk === 'number' ? (data.immovableByPk.get(pk) ?? null) : null;
    return { entry, uat, data, feature, immovable };
  }

  /** The first `perLayer` features of each layer of one UAT (for /__sim/truth). */
  ofUat(siruta: number, perLayer: number): CatalogEntry[] {
    const data = this.store.get(siruta);
    if (!data) return [];
    return CENTRAL_LAYERS.flatMap((layerId) =>
      (data.layers.get(layerId)?.features ?? []).slice(0, perLayer).flatMap((f) => {
        const e = this.byId.get(featureUuid(layerId, siruta, f.objectId));
        return e ? [e] : [];
      }),
    );
  }

  /** The features of one UAT and layer carrying the reference. */
  find(siruta: number, cadastralRef: string, layerId: string = LAYER_PARCELS): CatalogEntry[] {
    return this.byCadastralRef(cadastralRef).filter((e) => e.siruta === siruta && e.layerId === layerId);
  }
}
