/**
 * /__sim/mutate: changes the remote data the way the real portal changes between two syncs —
 * new parcels registered, parcels retired, parcels updated (VALID_FROM and LAST_UPDATED_DTM
 * bumped, owners re-derived), parcels re-measured (`reshape`: the same feature with a smaller
 * ring and its new AREA_VALUE, LAST_UPDATED_DTM bumped, VALID_FROM kept: a survey correction is
 * not a new documentation). Choices come from a seeded PRNG so a test run is repeatable.
 */
import type { Prng } from '../shared/prng';
import { flatArea, parcelAttributes } from './generator';
import { LAYER_PARCELS } from './layers';
import type { LayerData, SimFeature, UatData } from './model';
import type { Uat } from './nomenclature';

export interface MutateRequest {
  add?: number;
  remove?: number;
  change?: number;
  reshape?: number;
}

export interface MutateResult {
  added: number[];
  removed: number[];
  changed: number[];
  reshaped: number[];
}

/** Shrinks a ring about its centroid: a new feature that stays inside an existing one. */
function shrunk(flat: Float64Array, factor: number): Float64Array {
  let cx = 0;
  let cy = 0;
  const n = flat.length / 2 - 1;
  for (let i = 0; i < n; i++) {
    cx += flat[i * 2];
    cy += flat[i * 2 + 1];
  }
  cx /= n;
  cy /= n;
  const out = new Float64Array(flat.length);
  for (let i = 0; i < flat.length; i += 2) {
    out[i] = Math.round((cx + (flat[i] - cx) * factor) * 100) / 100;
    out[i + 1] = Math.round((cy + (flat[i + 1] - cy) * factor) * 100) / 100;
  }
  return out;
}

function sampleIndexes(rng: Prng, length: number, n: number): number[] {
  const picked = new Set<number>();
  const want = Math.min(n, length);
  while (picked.size < want) picked.add(rng.int(0, length - 1));
  return [...picked].sort((a, b) => a - b);
}

export function mutateLayer(uat: Uat, data: UatData, layerId: string, layer: LayerData, req: MutateRequest, rng: Prng): MutateResult {
  const result: MutateResult = { added: [], removed: [], changed: [], reshaped: [] };
  // Strictly after everything generated, and strictly increasing, so incremental syncs see it.
  // (a loop, not Math.max(...features): 200,000 arguments overflow the call stack at bench scale)
  let now = Date.now();
  for (const f of layer.features) now = Math.max(now, Number(f.attributes.LAST_UPDATED_DTM ?? 0));
  now += 1000;
  now = Math.floor(now / 1000) * 1000 + 1000;
  const isParcels = layerId === LAYER_PARCELS;

  if (req.remove) {
    const idx = sampleIndexes(rng, layer.features.length, req.remove);
    const gone = new Set(idx);
    for (const i of idx) {
      const f = layer.features[i];
      result.removed.push(f.objectId);
      const pk = f.attributes.IMMOVABLE_ID;
      if (isParcels && typeof pk === 'number') {
        data.immovableByPk.delete(pk);
        data.immovables = data.immovables.filter((im) => im.immovablePk !== pk);
      }
    }
    layer.features = layer.features.filter((_, i) => !gone.has(i));
  }

  if (req.change) {
    for (const i of sampleIndexes(rng, layer.features.length, req.change)) {
      const f = layer.features[i];
      f.attributes = { ...f.attributes, VALID_FROM: now, LAST_UPDATED_DTM: now };
      result.changed.push(f.objectId);
      const pk = f.attributes.IMMOVABLE_ID;
      const imm = typeof pk === 'number' ? data.immovableByPk.get(pk) : undefined;
      if (isParcels && imm) {
        imm.revision++;
        imm.validFrom = now;
      }
    }
  }

  if (req.reshape) {
    const shapes = layer.features.map((f, i) => ({ f, i })).filter(({ f }) => f.parts !== null && f.parts.length > 0);
    for (const k of sampleIndexes(rng, shapes.length, req.reshape)) {
      const f = shapes[k].f;
      const parts = (f.parts ?? []).map((ring) => shrunk(ring, 0.9));
      f.parts = parts;
      f.attributes = { ...f.attributes, AREA_VALUE: Math.round(flatArea(parts[0])), LAST_UPDATED_DTM: now };
      result.reshaped.push(f.objectId);
    }
  }

  for (let k = 0; k < (req.add ?? 0); k++) {
    const objectId = layer.nextObjectId++;
    let feature: SimFeature;
    if (isParcels) {
      // Spare plots left by the layout keep new parcels from overlapping old ones.
      const donor = layer.features[rng.int(0, Math.max(0, layer.features.length - 1))];
      const ring = data.spareParcels.shift() ?? (donor?.parts ? shrunk(donor.parts[0], 0.3) : null);
      const area = ring ? flatArea(ring) : 500;
      const pk = data.nextImmovablePk++;
      const cadRef = String(data.nextCadastralNumber++);
      feature = { objectId, attributes: parcelAttributes(uat, objectId, pk, cadRef, area, now), parts: ring ? [ring] : null };
      const imm = {
        immovablePk: pk,
        kind: 'urban' as const,
        cadastralNumber: cadRef,
        landbookNo: cadRef,
        oldLandbookNo: null,
        topoNo: null,
        intravilan: true,
        measuredArea: Math.round(area),
        legalArea: Math.round(area),
        useCategories: [{ code: 'CC', name: 'curți construcții', area: Math.round(area), intravilan: true }],
        address: null,
        freeTextAddress: `Intravilan ${uat.name}, număr poștal neatribuit`,
        objectId,
        buildingRefs: [],
        revision: 0,
        validFrom: now,
      };
      data.immovables.push(imm);
      data.immovableByPk.set(pk, imm);
    } else {
      // Other layers: a smaller copy inside an existing feature (a new building on a plot, ...).
      const parcels = data.layers.get(LAYER_PARCELS)?.features ?? [];
      const donor = parcels.length ? parcels[rng.int(0, parcels.length - 1)] : layer.features[0];
      const attrs = { ...(layer.features[0]?.attributes ?? {}) };
      for (const key of Object.keys(attrs)) if (typeof attrs[key] === 'string') attrs[key] = null;
      feature = {
        objectId,
        attributes: {
          ...attrs,
          OBJECTID: objectId,
          ADMIN_UNIT_ID: uat.siruta,
          WORKSPACE_ID: uat.workspaceId,
          VALID_FROM: now,
          LAST_UPDATED_DTM: now,
          ...(donor?.attributes.NATIONAL_CADASTRAL_REFERENCE !== undefined && 'IMMOVABLE_ID' in attrs
            ? { NATIONAL_CADASTRAL_REFERENCE: `${donor.attributes.NATIONAL_CADASTRAL_REFERENCE}-C9`, IMMOVABLE_ID: donor.attributes.IMMOVABLE_ID }
            : {}),
        },
        parts: donor?.parts ? [shrunk(donor.parts[0], 0.3)] : null,
      };
    }
    layer.features.push(feature);
    result.added.push(objectId);
  }
  return result;
}
