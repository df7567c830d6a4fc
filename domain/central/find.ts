/**
 * `/api/gis/parcela/find` (spec 4.2, rules 1-4). The central search has no siruta filter and
 * caps at 50 hits, so a cadastral reference repeated across UATs (spec 2.1) can push the asked
 * UAT's parcel out of the page; that case is told apart from "not in the central store".
 * Exactly one log line per outcome.
 */
import type { Db } from '../db/pool';
import { AppError } from '../errors';
import { childLogger } from '../log';
import { centralJson, type TokenSource } from './client';

const log = childLogger('central');

/** Spec 4.2 and 8: the central search's default and maximum page. */
export const CENTRAL_SEARCH_LIMIT = 50;

export interface CentralSearchHit {
  id: string;
  layerId: string;
  siruta: number;
  cadastral_ref: string;
}
export interface CentralSearchAnswer {
  features: CentralSearchHit[];
  total?: number;
  limit?: number;
}

export interface FindInput {
  siruta: number;
  cad: string;
  layerId: string;
  token: TokenSource;
}

export type FindOutcome = 'found' | 'search_limit_exceeded' | 'scope_insufficient' | 'not_found' | 'upstream_error';

export const findErrors = {
  searchLimitExceeded: (cad: string, siruta: number) =>
    new AppError(
      422,
      'search_limit_exceeded',
      `Căutarea după numărul cadastral ${cad} a întors numărul maxim de rezultate, toate din alte UAT-uri; parcela din UAT ${siruta} nu poate fi găsită.`,
      { hint: 'The central search returned its maximum of 50 features, all with this cadastral ref and none in the asked siruta: a siruta filter is missing upstream (/api/v1/search).' },
    ),
  scopeInsufficient: () =>
    new AppError(403, 'scope_insufficient', 'Contul dumneavoastră nu are dreptul de a vedea această parcelă. Autentificați-vă din nou sau cereți extinderea drepturilor.'),
  notFound: (cad: string, siruta: number) =>
    new AppError(404, 'not_found', `Parcela ${cad} din UAT ${siruta} nu există în depozitul central.`),
};

export async function findParcel(db: Db, input: FindInput): Promise<unknown> {
  const { siruta, cad, layerId } = input;
  const started = Date.now();
  let candidates = 0;
  let hits = 0;
  let logged = false;
  const done = (outcome: FindOutcome, extra: Record<string, unknown> = {}) => {
    logged = true;
    log.info({ outcome, siruta, cad, layerId, hits, candidates, ms: Date.now() - started, ...extra }, `parcela/find: ${outcome}`);
  };
  try {
    // Rule 1: search by cad, keep the hits of the asked layer and UAT, fetch the match's detail.
    let search: CentralSearchAnswer;
    try {
      search = await centralJson<CentralSearchAnswer>(db, { path: '/search', query: { q: cad, limit: CENTRAL_SEARCH_LIMIT }, token: input.token });
    } catch (err) {
      // Spec 5.5: a token without the scope claim is refused by every route, the search too; the
      // caller may see none of the candidates, which is rule 3's answer.
      if (err instanceof AppError && err.status === 403) {
        done('scope_insufficient', { stage: 'search' });
        throw findErrors.scopeInsufficient();
      }
      throw err;
    }
    const features = Array.isArray(search.features) ? search.features : [];
    hits = features.length;
    const matches = features.filter((f) => f.layerId === layerId && Number(f.siruta) === siruta);
    candidates = matches.length;
    let forbidden = 0;
    for (const m of matches) {
      try {
        const detail = await centralJson(db, { path: `/parcela/${encodeURIComponent(m.id)}`, token: input.token });
        done('found', { id: m.id });
        return detail;
      } catch (err) {
        if (err instanceof AppError && err.status === 403) forbidden++;
        else if (!(err instanceof AppError && err.status === 404)) throw err;
      }
    }
    // Rule 2: nothing here, and the page is full of this reference from other UATs.
    if (candidates === 0 && hits >= CENTRAL_SEARCH_LIMIT && features.every((f) => f.cadastral_ref === cad)) {
      done('search_limit_exceeded');
      throw findErrors.searchLimitExceeded(cad, siruta);
    }
    // Rule 3: every candidate was forbidden to this caller.
    if (candidates > 0 && forbidden === candidates) {
      done('scope_insufficient');
      throw findErrors.scopeInsufficient();
    }
    // Rule 4.
    done('not_found');
    throw findErrors.notFound(cad, siruta);
  } catch (err) {
    if (!logged) done('upstream_error', { status: err instanceof AppError ? err.status : 500, error: err instanceof AppError ? err.code : 'internal_error' });
    throw err;
  }
}
