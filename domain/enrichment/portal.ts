/**
 * EnrichmentPortal over the shared portal client (domain/landreg/client.ts: one stored session,
 * transparent re-login, rate limit, typed errors). The immovable paths the enrichment needs live
 * here, once; layer and nomenclature calls reuse domain/landreg/portal.ts.
 */
import { PortalRejectedError, countFeatures, listWorkspaceUats, listWorkspaces, uatDetail, uatWhere, type LandregClient } from '../landreg/service';
import type {
  EnrichmentPortal,
  LayerAttributes,
  PortalImmovableDetails,
  PortalImmovableListEntry,
  PortalOwnerHit,
  PortalOwnershipNode,
  PortalSearchAnswer,
} from './portalTypes';

/** A 404 of the portal is an answer ("no such immovable"), not a failure. */
async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof PortalRejectedError && err.upstreamStatus === 404) return null;
    throw err;
  }
}

export function enrichmentPortal(c: LandregClient): EnrichmentPortal {
  return {
    immovableDetails: (pk) => orNull(c.get<PortalImmovableDetails>('/immovable/details', { immovablePk: pk })),
    async ownershipTree(pk) {
      const r = await orNull(c.get<{ nodes?: PortalOwnershipNode[] }>('/immovable/ownership', { immovablePk: pk }));
      return r?.nodes ?? [];
    },
    searchByCadastral: (ws, siruta, numbers) =>
      c.get<PortalSearchAnswer<PortalImmovableDetails>>('/immovable/search', { workspaceId: ws, adminUnitId: siruta, cadastralNumbers: numbers.join(',') }),
    searchByOwner: (ws, siruta, name) =>
      c.get<PortalSearchAnswer<PortalOwnerHit>>('/immovable/search-owner', { workspaceId: ws, adminUnitId: siruta, name }),
    immovablePage: (ws, siruta, page, size) =>
      c.get<{ content: PortalImmovableListEntry[]; totalElements: number; last: boolean }>('/immovable/list', { workspaceId: ws, adminUnitId: siruta, page, size }),
    layerCount: (layerId, siruta) => countFeatures(c, layerId, uatWhere(siruta)),
    async layerAttributesPage(layerId, siruta, outFields, offset, size) {
      const r = await c.json<{ features?: Array<{ attributes: LayerAttributes }>; exceededTransferLimit?: boolean }>(
        'POST',
        `/map/rest/${encodeURIComponent(layerId)}/query`,
        { form: { where: uatWhere(siruta), outFields: outFields.join(','), returnGeometry: 'false', resultOffset: offset, resultRecordCount: size, f: 'json' } },
      );
      const rows = (r.features ?? []).map((f) => f.attributes);
      return { rows, more: r.exceededTransferLimit === true && rows.length > 0 };
    },
    async workspaceOfUat(siruta) {
      const u = await orNull(uatDetail(c, siruta, false));
      return typeof u?.workspaceId === 'number' ? u.workspaceId : null;
    },
    async workspaces() {
      return (await listWorkspaces(c)).map((w) => w.workspaceId);
    },
    async uatsOfWorkspace(ws) {
      return ((await orNull(listWorkspaceUats(c, ws))) ?? []).map((u) => u.siruta);
    },
  };
}
