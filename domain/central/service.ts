/**
 * The central GIS API's door (docs/architecture.md "Areas"): calls to the central API on the
 * process's store (its shared pace lives there), each with the caller's own token, the parcel
 * search of spec 4.2 and the search's hits named from the local UAT catalogue. Built once per
 * process by `domain/services.ts` and handed to the central proxy routes (api/routes/centralApi.ts).
 */
import type { AreaDeps } from '../areaDeps';
import { centralJson, centralStream, type CentralRequest } from './client';
import { findParcel, type CentralSearchAnswer, type FindInput } from './find';
import { nameCentralHits } from './search';

export { CENTRAL_SEARCH_LIMIT } from './find';
export type { CentralRequest, TokenSource } from './client';
export type { CentralSearchAnswer } from './find';

export function createCentralService({ store }: AreaDeps) {
  const db = store.pool;
  return {
    /** One JSON exchange with the central API (its status and error forwarded as an AppError). */
    json: <T = Record<string, unknown>>(req: CentralRequest) => centralJson<T>(db, req),
    /** One streamed answer (the CF extract's PDF). */
    stream: (req: CentralRequest) => centralStream(db, req),
    /** The central parcel of (siruta, cad, layerId): spec 4.2 rules 1-4. */
    findParcel: (input: FindInput) => findParcel(db, input),
    /** The search's hits with their UAT's name and county; `siruta` keeps one UAT's. */
    nameHits: (answer: CentralSearchAnswer, opts: { siruta?: number } = {}) => nameCentralHits(answer, opts, db),
  };
}

export type CentralService = ReturnType<typeof createCentralService>;
