/**
 * The geoportal's door (docs/architecture.md "Areas"): search, the feature panel, the selection
 * export, a UAT's bounds and boundary check, a parcel's CF extract state. Built once per process
 * by `domain/services.ts` and handed to its routes (api/routes/geoportal.ts). Search and the
 * feature panel read through the readers (the replica when there is one); each call applies the
 * viewer it is given. Its pure rules are in `rules.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import type { Caller } from '../concurrency';
import { heavyRead } from '../db/heavyRead';
import { readOn } from '../db/readers';
import { cfStatus } from './cfStatus';
import { exportFeatures, type ExportFormat } from './export';
import { getFeature, type FeatureKey } from './feature';
import type { Viewer } from './rules';
import { searchGeoportal } from './search';
import { boundaryCheck, uatBounds } from './uat';

export type { Bbox, FeatureView, RestrictedFeatureView, SearchResult } from './types';

export function createGeoportalService({ store }: Pick<AreaDeps, 'store'>) {
  return {
    /** `signal`: the caller left (a superseded keystroke); its statements are cancelled. */
    search: (q: string, limit: number, viewer: Viewer, opts: { siruta?: number } = {}, signal?: AbortSignal) =>
      readOn(store, (r) => searchGeoportal(q, limit, viewer, opts, r.pool, signal)),
    feature: (key: FeatureKey, viewer: Viewer) => readOn(store, (r) => getFeature(key, viewer, r.pool)),
    /** The selected features converted by ogr2ogr; the caller streams the file, then calls its `cleanup()`. */
    exportFeatures: (format: ExportFormat, featureIds: string[], viewer: Viewer, signal?: AbortSignal) =>
      exportFeatures(format, featureIds, viewer, store.pool, signal),
    uatBounds: (siruta: number) => uatBounds(siruta, store.pool),
    /** A heavy read (domain/db/heavyRead.ts): the caller's slot, one connection, cancelled when the caller leaves. */
    boundaryCheck: (siruta: number, caller: Caller) => heavyRead(store.pool, caller, (conn) => boundaryCheck(siruta, conn)),
    cfStatus: (nrCad: string, siruta: number | undefined) => cfStatus(nrCad, siruta, store.pool),
  };
}

export type GeoportalService = ReturnType<typeof createGeoportalService>;
