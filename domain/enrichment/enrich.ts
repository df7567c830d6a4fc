/**
 * The enrichment's operations: batch enrichment of stored parcels (the enrichParcels workflow's
 * activity), cadastral search with the workspace resolution chain, owner search (store first,
 * portal fallback) and single-parcel enrichment (which goes through the cadastral search, as
 * spec 4.1 asks). Rules are in ./rules.ts, SQL in ./store.ts, portal paths in ./portal.ts; the
 * rest of the house calls these through the area's door (./service.ts), which binds the deps.
 */
import type { Db } from '../db/pool';
import { config } from '../config';
import { AppError, errors } from '../errors';
import { mapBounded } from '../concurrency';
import { foldName } from '../text/fold';
import { tilesChanged } from '../tiles/service';
import type { Viewer } from '../auth/rules';
import type { EnrichmentPortal, PortalImmovableDetails } from './portalTypes';
import { MAX_CADASTRAL_NUMBERS, NODE_STATUS_RADIATED, buildEnrichment, canSearchOwners, nameTokens, parseOwners, redactEnrichment, type BuildingFacts, type Enrichment } from './rules';
import {
  ENRICH_FRESH_DAYS,
  NO_GEOMETRY,
  buildingFactsFor,
  findParcel,
  parcelsByCadastralRefs,
  searchOwnersLocal,
  uatContext,
  writeEnrichment,
  type ParcelToEnrich,
  type StoredParcel,
  type UatContext,
} from './store';
import type { StartDelivery } from '../areaDeps';

export interface EnrichmentDeps {
  db: Db;
  /** Starts the e-mails of the follow notifications a write raises (temporal/mail.ts `mailDelivery`). */
  deliverMail: StartDelivery;
  portal: EnrichmentPortal;
  now?: () => Date;
}

/**
 * Parcels enriched at once inside one batch. Each costs two sequential portal calls; the shared
 * client's token bucket (LANDREG_REQUESTS_PER_SECOND) is the real cap, this only keeps enough
 * calls in flight to use it without queueing dozens of them.
 */
export const ENRICH_PARALLEL_PARCELS = 4;
/** The portal answers at most 50 hits a cadastral search (EXTERNAL-SERVICES.md, landreg). */
export const PORTAL_SEARCH_MAX_HITS = 50;
/** Owner search needs at least this many letters (the portal refuses shorter names). */
export const OWNER_SEARCH_MIN_CHARS = 3;

const DAY_MS = 86_400_000;


// ---------------------------------------------------------------------------------------------
// Batch enrichment (workflow activity)
// ---------------------------------------------------------------------------------------------

export interface BatchResult {
  enriched: number;
  /** The portal no longer knows the immovable, or the record has no immovable id. */
  notFound: number;
  portalCalls: number;
}

function enrichmentOf(details: PortalImmovableDetails, tree: Parameters<typeof buildEnrichment>[0]['ownership'], buildings: BuildingFacts, ctx: UatContext, cadastralRef: string | null, now: Date): Enrichment {
  return buildEnrichment({
    details,
    ownership: tree,
    buildings,
    siruta: ctx.siruta,
    uatName: ctx.name,
    county: ctx.county,
    workspaceId: ctx.workspacePk,
    cadastralRef,
    now,
  });
}

/**
 * Enriches the given stored parcels of one UAT: details and ownership tree from the portal,
 * building facts from the store, one UPDATE each. `skip` lists parcel ids a previous attempt of
 * the same batch already wrote (heartbeat resume); `onDone` reports each finished id.
 */
export async function enrichParcelBatch(
  deps: EnrichmentDeps,
  siruta: number,
  parcels: readonly ParcelToEnrich[],
  opts: { skip?: ReadonlySet<string>; onDone?: (id: string) => void; jobId?: string } = {},
): Promise<BatchResult> {
  const todo = parcels.filter((p) => !opts.skip?.has(p.id));
  const result: BatchResult = { enriched: 0, notFound: 0, portalCalls: 0 };
  if (todo.length === 0) return result;
  const startedAt = (deps.now ?? (() => new Date()))();
  const [ctx, facts] = await Promise.all([uatContext(deps.db, siruta), buildingFactsFor(deps.db, siruta, todo.map((p) => p.id))]);
  // One bump per batch, also when a parcel failed after others were written.
  try {
    await enrichBatch(deps, todo, ctx, facts, startedAt, result, opts);
  } finally {
    if (result.enriched > 0) await tilesChanged(deps.db, { kind: 'enrichment' });
  }
  return result;
}

async function enrichBatch(
  deps: EnrichmentDeps,
  todo: readonly ParcelToEnrich[],
  ctx: UatContext,
  facts: Map<string, BuildingFacts>,
  startedAt: Date,
  result: BatchResult,
  opts: { onDone?: (id: string) => void; jobId?: string },
): Promise<void> {
  await mapBounded(todo, ENRICH_PARALLEL_PARCELS, async (p) => {
    if (p.immovablePk === null) {
      result.notFound++;
      opts.onDone?.(p.id);
      return;
    }
    result.portalCalls++;
    const details = await deps.portal.immovableDetails(p.immovablePk);
    if (!details) {
      result.notFound++;
      opts.onDone?.(p.id);
      return;
    }
    result.portalCalls++;
    const tree = await deps.portal.ownershipTree(p.immovablePk);
    const now = (deps.now ?? (() => new Date()))();
    const e = enrichmentOf(details, tree, facts.get(p.id) ?? { count: 0, legal: null }, ctx, p.cadastralRef, now);
    await writeEnrichment(deps.db, deps.deliverMail, p.id, e, startedAt, opts.jobId ?? null);
    result.enriched++;
    opts.onDone?.(p.id);
  });
}

// ---------------------------------------------------------------------------------------------
// Workspace resolution (spec 4.4 search)
// ---------------------------------------------------------------------------------------------

export type WorkspaceSource = 'request' | 'store' | 'nomenclature' | 'county_scan';

/**
 * The county (workspace) of a UAT: the request's workspacePk, then the store, then the portal's
 * nomenclature (UAT → county), then a scan of every county's UAT list. A workspace found on the
 * portal is written back to a stored UAT that lacks it, so the next search stops at the store.
 */
/**
 * SIRUTA codes answered 404 lately (unknown to the UAT catalogue, or to the portal), until when:
 * a repeated miss costs neither a portal call nor a query. Per process.
 */
const unknownUats = new Map<number, number>();
const UNKNOWN_UATS_KEPT = 10_000;

function rememberUnknown(siruta: number): void {
  if (unknownUats.size >= UNKNOWN_UATS_KEPT) unknownUats.clear();
  unknownUats.set(siruta, Date.now() + config.limits.unknownUatCacheMs);
}

const unknownUat = (siruta: number) => errors.notFound(`UAT-ul cu codul SIRUTA ${siruta} nu există în catalogul UAT.`);

/**
 * The workspace of a UAT: the request's, the store's, the portal's nomenclature, else a scan of
 * every workspace. A SIRUTA the UAT catalogue does not know is a 404 before any portal call (a
 * scan costs dozens of them), and every miss is remembered for config.limits.unknownUatCacheMs.
 */
export async function resolveWorkspace(deps: EnrichmentDeps, siruta: number, workspacePk?: number | null): Promise<{ workspacePk: number; source: WorkspaceSource }> {
  const missUntil = unknownUats.get(siruta);
  if (missUntil !== undefined && missUntil > Date.now()) throw unknownUat(siruta);
  const uat = await uatContext(deps.db, siruta);
  if (!uat.known) {
    rememberUnknown(siruta);
    throw unknownUat(siruta);
  }
  unknownUats.delete(siruta);
  if (workspacePk) return { workspacePk, source: 'request' };
  const stored = uat.workspacePk;
  if (stored) return { workspacePk: stored, source: 'store' };
  let found: { workspacePk: number; source: WorkspaceSource } | null = null;
  const fromNomenclature = await deps.portal.workspaceOfUat(siruta);
  if (fromNomenclature) found = { workspacePk: fromNomenclature, source: 'nomenclature' };
  if (!found) {
    for (const ws of await deps.portal.workspaces()) {
      if ((await deps.portal.uatsOfWorkspace(ws)).includes(siruta)) {
        found = { workspacePk: ws, source: 'county_scan' };
        break;
      }
    }
  }
  if (!found) {
    rememberUnknown(siruta);
    throw errors.notFound(`UAT-ul cu codul SIRUTA ${siruta} nu există pe portalul de cadastru.`);
  }
  await deps.db.query(`UPDATE gis_uats SET workspace_pk = $2 WHERE siruta = $1 AND workspace_pk IS NULL`, [siruta, found.workspacePk]);
  return found;
}

// ---------------------------------------------------------------------------------------------
// Cadastral search (spec 2.4 rule 4, 4.4)
// ---------------------------------------------------------------------------------------------

export interface ParcelView {
  featureId: string | null;
  siruta: number;
  cadastralRef: string | null;
  immovablePk: number | null;
  /** Basic panel users see only the cadastral number and the area (spec 5.6). */
  restricted: boolean;
  enrichment: Partial<Enrichment> | null;
}

/** The one place that decides how much of an enrichment a viewer sees. */
export function viewEnrichment(e: Record<string, unknown> | null, viewer: Viewer): { restricted: boolean; enrichment: Partial<Enrichment> | null } {
  if (!e) return { restricted: viewer.basicPanel, enrichment: null };
  if (viewer.basicPanel) {
    return { restricted: true, enrichment: { NR_CAD: e.NR_CAD as string | null, SIRUTA: e.SIRUTA as number | null, SUPRAFATA: e.SUPRAFATA as number | null } };
  }
  return { restricted: false, enrichment: redactEnrichment({ ...e }, viewer) as Partial<Enrichment> };
}

export interface CadastralSearchResult {
  siruta: number;
  workspacePk: number;
  workspaceSource: WorkspaceSource;
  /** `areaValue`: the cadastral layer's area of the office's stored copy (null when not stored), beside the land book's SUPRAFATA. */
  results: Array<ParcelView & { matchedBy: 'cadastral' | 'landbook'; areaValue: number | null }>;
  notFound: string[];
}

/** Splits a comma-separated list (or an array of such) into distinct, trimmed numbers. */
export function parseCadastralNumbers(input: string | readonly string[]): string[] {
  const parts = (Array.isArray(input) ? input : [input]).flatMap((s) => String(s).split(/[,;\s]+/));
  return [...new Set(parts.map((s) => s.trim()).filter(Boolean))];
}

/** Portal hits of one UAT for these numbers; a truncated answer is asked again in halves. */
async function portalHits(deps: EnrichmentDeps, ws: number, siruta: number, numbers: string[]): Promise<PortalImmovableDetails[]> {
  const out: PortalImmovableDetails[] = [];
  for (let i = 0; i < numbers.length; i += PORTAL_SEARCH_MAX_HITS) {
    const chunk = numbers.slice(i, i + PORTAL_SEARCH_MAX_HITS);
    const ans = await deps.portal.searchByCadastral(ws, siruta, chunk);
    if (ans.truncated && chunk.length > 1) {
      const half = Math.ceil(chunk.length / 2);
      out.push(...(await portalHits(deps, ws, siruta, chunk.slice(0, half))), ...(await portalHits(deps, ws, siruta, chunk.slice(half))));
    } else {
      out.push(...ans.content);
    }
  }
  // Cadastral numbers repeat across UATs (spec 2.1): only the asked UAT's immovables count.
  const seen = new Set<number>();
  return out.filter((h) => (h.adminUnitId === undefined || h.adminUnitId === null || h.adminUnitId === siruta) && !seen.has(h.immovablePk) && seen.add(h.immovablePk));
}

interface EnrichedHit {
  details: PortalImmovableDetails;
  enrichment: Enrichment;
  stored: StoredParcel | null;
}

/** Details + ownership tree + stored building facts → enrichment, for each portal hit. */
async function enrichHits(deps: EnrichmentDeps, siruta: number, hits: PortalImmovableDetails[]): Promise<EnrichedHit[]> {
  const ctx = await uatContext(deps.db, siruta);
  const refs = [...new Set(hits.map((h) => h.cadastralNumber).filter((r): r is string => !!r))];
  const stored = await parcelsByCadastralRefs(deps.db, siruta, refs);
  const byPk = new Map(stored.filter((s) => s.immovablePk !== null).map((s) => [s.immovablePk!, s]));
  const facts = await buildingFactsFor(deps.db, siruta, stored.map((s) => s.id));
  return mapBounded(hits, ENRICH_PARALLEL_PARCELS, async (h) => {
    const tree = await deps.portal.ownershipTree(h.immovablePk);
    const s = byPk.get(h.immovablePk) ?? null;
    const now = (deps.now ?? (() => new Date()))();
    return { details: h, stored: s, enrichment: enrichmentOf(h, tree, (s && facts.get(s.id)) ?? { count: 0, legal: null }, ctx, h.cadastralNumber ?? null, now) };
  });
}

export async function searchCadastral(
  deps: EnrichmentDeps,
  req: { siruta: number; cadastralNumbers: string | readonly string[]; workspacePk?: number | null },
  viewer: Viewer,
): Promise<CadastralSearchResult> {
  const numbers = parseCadastralNumbers(req.cadastralNumbers);
  if (numbers.length === 0) throw errors.badRequest('Introduceți cel puțin un număr cadastral.');
  if (numbers.length > MAX_CADASTRAL_NUMBERS) {
    throw errors.badRequest(`Cel mult ${MAX_CADASTRAL_NUMBERS} de numere cadastrale într-o căutare.`, [
      { field: 'cadastralNumbers', problem: `${numbers.length} numere distincte; limita este ${MAX_CADASTRAL_NUMBERS}` },
    ]);
  }
  const ws = await resolveWorkspace(deps, req.siruta, req.workspacePk);
  // The portal matches land-book (CF) numbers too. A hit found only by its CF number would tell
  // a viewer without personal data which parcel a CF number belongs to, however its NR_CF is
  // redacted: for them a number is a cadastral number or nothing (and no portal call is spent
  // on that hit's ownership tree).
  const matched = (await portalHits(deps, ws.workspacePk, req.siruta, numbers)).filter(
    (h) => viewer.personalData || (!!h.cadastralNumber && numbers.includes(h.cadastralNumber)),
  );
  const hits = await enrichHits(deps, req.siruta, matched);
  const found = new Set<string>();
  const results = hits.map((h) => {
    const byCad = !!h.details.cadastralNumber && numbers.includes(h.details.cadastralNumber);
    found.add(byCad ? h.details.cadastralNumber! : (h.details.landbookNo ?? ''));
    return {
      featureId: h.stored?.id ?? null,
      siruta: req.siruta,
      cadastralRef: h.details.cadastralNumber ?? null,
      immovablePk: h.details.immovablePk,
      matchedBy: byCad ? ('cadastral' as const) : ('landbook' as const),
      areaValue: h.stored?.areaValue ?? null,
      ...viewEnrichment(h.enrichment as unknown as Record<string, unknown>, viewer),
    };
  });
  return { siruta: req.siruta, workspacePk: ws.workspacePk, workspaceSource: ws.source, results, notFound: numbers.filter((n) => !found.has(n)) };
}

// ---------------------------------------------------------------------------------------------
// Single-parcel enrichment (POST /api/geoportal/enrich)
// ---------------------------------------------------------------------------------------------

export interface EnrichedFeature extends ParcelView {
  id: string;
  objectId: number;
  areaValue: number | null;
  geometrySource: string | null;
  enrichedAt: string | null;
  /** True when the stored enrichment was fresh (under 7 days, spec 8) and no portal call was made. */
  cached: boolean;
}

/**
 * Enriches one stored parcel through the cadastral search (spec 4.1: "by calling the landreg
 * search route internally") and stores the result. A parcel enriched under ENRICH_FRESH_DAYS ago
 * and not marked for re-enrichment is answered from the store (spec 8), unless `force`.
 */
export async function enrichOne(deps: EnrichmentDeps, ref: { id: string } | { siruta: number; objectId: number }, viewer: Viewer, force = false): Promise<EnrichedFeature> {
  const parcel = await findParcel(deps.db, ref);
  if (!parcel) throw errors.notFound('Parcela nu există în baza de date locală.');
  const now = (deps.now ?? (() => new Date()))();
  const reenrich = await deps.db.query<{ m: boolean }>(`SELECT reenrich_marked AS m FROM gis_features WHERE id = $1`, [parcel.id]);
  const fresh = parcel.enrichedAt !== null && now.getTime() - parcel.enrichedAt.getTime() < ENRICH_FRESH_DAYS * DAY_MS && !reenrich.rows[0]?.m;
  let enrichment = parcel.enrichment;
  let enrichedAt = parcel.enrichedAt;
  if (!fresh || force) {
    let hit: EnrichedHit | undefined;
    if (parcel.cadastralRef) {
      const ws = await resolveWorkspace(deps, parcel.siruta);
      const hits = await portalHits(deps, ws.workspacePk, parcel.siruta, [parcel.cadastralRef]);
      // A number repeated inside the UAT (or matching another book number): the parcel's own immovable.
      const mine = hits.filter((h) => parcel.immovablePk === null || h.immovablePk === parcel.immovablePk);
      [hit] = await enrichHits(deps, parcel.siruta, mine.slice(0, 1));
    } else if (parcel.immovablePk !== null) {
      const details = await deps.portal.immovableDetails(parcel.immovablePk);
      if (details) [hit] = await enrichHits(deps, parcel.siruta, [details]);
    }
    if (!hit) throw new AppError(404, 'not_found', 'Portalul de cadastru nu a găsit imobilul acestei parcele.');
    await writeEnrichment(deps.db, deps.deliverMail, parcel.id, hit.enrichment, now);
    await tilesChanged(deps.db, { kind: 'enrichment' });
    enrichment = hit.enrichment as unknown as Record<string, unknown>;
    enrichedAt = now;
  }
  return {
    id: parcel.id,
    featureId: parcel.id,
    siruta: parcel.siruta,
    objectId: parcel.objectId,
    cadastralRef: parcel.cadastralRef,
    immovablePk: parcel.immovablePk,
    areaValue: parcel.areaValue,
    geometrySource: parcel.geometrySource,
    enrichedAt: enrichedAt ? enrichedAt.toISOString() : null,
    cached: fresh && !force,
    ...viewEnrichment(enrichment, viewer),
  };
}

/** A stored parcel as the parcel page shows it, its enrichment under the viewer rule; null when not stored. */
export async function storedParcel(db: Db, id: string, viewer: Viewer) {
  const parcel = await findParcel(db, { id });
  if (!parcel) return null;
  return {
    parcel: {
      id: parcel.id,
      siruta: parcel.siruta,
      objectId: parcel.objectId,
      cadastralRef: parcel.cadastralRef,
      areaValue: parcel.areaValue,
      noGeometry: parcel.geometrySource === NO_GEOMETRY,
      enrichedAt: parcel.enrichedAt?.toISOString() ?? null,
    },
    ...viewEnrichment(parcel.enrichment, viewer),
    redacted: !viewer.personalData,
  };
}

// ---------------------------------------------------------------------------------------------
// Owner search (spec 4.4 search-owner)
// ---------------------------------------------------------------------------------------------

export interface OwnerMatch {
  name: string;
  share: string | null;
  /** false: the owner is a former owner (radiated inscription). */
  current: boolean;
}

export interface OwnerSearchHit {
  source: 'local' | 'online';
  featureId: string | null;
  siruta: number;
  cadastralRef: string | null;
  immovablePk: number | null;
  nrCF: string | null;
  owners: OwnerMatch[];
}

export interface OwnerSearchResult {
  name: string;
  siruta: number;
  source: 'local' | 'online' | 'none';
  results: OwnerSearchHit[];
}

const matchesAll = (name: string, tokens: readonly string[]) => {
  const n = foldName(name);
  return tokens.every((t) => n.includes(t));
};

export async function searchOwner(deps: EnrichmentDeps, req: { name: string; siruta: number; workspacePk?: number | null }, viewer: Viewer): Promise<OwnerSearchResult> {
  if (!canSearchOwners(viewer)) throw errors.forbidden('Contul dumneavoastră nu are acces la datele proprietarilor.');
  const tokens = nameTokens(req.name);
  if (tokens.join('').length < OWNER_SEARCH_MIN_CHARS) throw errors.badRequest(`Numele căutat trebuie să aibă cel puțin ${OWNER_SEARCH_MIN_CHARS} litere.`);

  const local = await searchOwnersLocal(deps.db, req.siruta, tokens);
  if (local.length > 0) {
    const results = local.map<OwnerSearchHit>((p) => {
      const e = p.enrichment ?? {};
      const owners = [
        ...parseOwners(e.PROPRIETARI as string | null).map((o) => ({ ...o, current: true })),
        ...parseOwners(e.PROPRIETARI_VECHI as string | null).map((o) => ({ ...o, current: false })),
      ].filter((o) => matchesAll(o.name, tokens));
      return {
        source: 'local',
        featureId: p.id,
        siruta: p.siruta,
        cadastralRef: p.cadastralRef,
        immovablePk: p.immovablePk,
        nrCF: (e.NR_CF as string | null) ?? null,
        // Tokens may fall on two different owners of one parcel: show them all then.
        owners: owners.length ? owners : parseOwners(e.PROPRIETARI as string | null).map((o) => ({ ...o, current: true })),
      };
    });
    return { name: req.name, siruta: req.siruta, source: 'local', results };
  }

  const ws = await resolveWorkspace(deps, req.siruta, req.workspacePk);
  const ans = await deps.portal.searchByOwner(ws.workspacePk, req.siruta, req.name);
  const hits = ans.content.filter((h) => h.adminUnitId === req.siruta);
  const stored = await parcelsByCadastralRefs(deps.db, req.siruta, [...new Set(hits.map((h) => h.cadastralNumber).filter((r): r is string => !!r))]);
  const byPk = new Map(stored.filter((s) => s.immovablePk !== null).map((s) => [s.immovablePk!, s]));
  const grouped = new Map<number, OwnerSearchHit>();
  for (const h of hits) {
    let g = grouped.get(h.immovablePk);
    if (!g) {
      g = {
        source: 'online',
        featureId: byPk.get(h.immovablePk)?.id ?? null,
        siruta: req.siruta,
        cadastralRef: h.cadastralNumber,
        immovablePk: h.immovablePk,
        nrCF: h.landbookNo ?? null,
        owners: [],
      };
      grouped.set(h.immovablePk, g);
    }
    g.owners.push({ name: h.ownerName, share: h.share || null, current: h.nodeStatus !== NODE_STATUS_RADIATED });
  }
  const results = [...grouped.values()];
  return { name: req.name, siruta: req.siruta, source: results.length ? 'online' : 'none', results };
}
