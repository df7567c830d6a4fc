/**
 * The OGC area's door (docs/architecture.md "Areas"): the OGC API Features reads (collections'
 * extents, pages of items with the next page read ahead, one item), the ready QGIS project and the
 * UATs it can be made for. Built once per process by `domain/services.ts` and handed to the /ogc
 * routes (api/routes/ogc.ts), the project route (api/routes/qgisProject.ts) and the Acces QGIS page
 * (web/app/lib/tokens.server.ts). Every read goes through the readers (the replica when there is
 * one). Its pure rules (collections, parameters) are in `rules.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import { readOn } from '../db/readers';
import { collectionExtents, projectExtent, queryItem, queryItems, uatsWithParcels, type ItemsQuery } from './features';
import { PagePrefetch } from './prefetch';
import { qgisProjectXml } from './qgisProject';

/** One page's statement, stateless: the bench times it inside PostgreSQL (scripts/bench/95-ogc.ts). */
export { pageStatement } from './features';
export type { CollectionExtent } from './features';

export function createOgcService({ store }: Pick<AreaDeps, 'store'>) {
  return {
    collectionExtents: (layerIds: readonly string[]) => readOn(store, (r) => collectionExtents(layerIds, r.pool)),
    queryItems: (q: ItemsQuery, signal?: AbortSignal) => readOn(store, (r) => queryItems(q, { db: r.pool, signal })),
    queryItem: (q: Parameters<typeof queryItem>[0]) => readOn(store, (r) => queryItem(q, r.pool)),
    /** The next pages read ahead for the clients walking a collection, one per user (prefetch.ts). */
    readAhead: new PagePrefetch(),
    /** What a QGIS project opens on; null for a siruta the store does not know. */
    projectExtent: (siruta: number | null) => readOn(store, (r) => projectExtent(siruta, r.pool)),
    projectXml: qgisProjectXml,
    uatsWithParcels: () => uatsWithParcels(store.pool),
  };
}

export type OgcService = ReturnType<typeof createOgcService>;
