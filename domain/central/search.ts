/**
 * `/api/gis/search` (spec 4.2) as the map shows it: the central search answers only ids,
 * siruta and cadastral numbers, so four parcels numbered alike in four UATs were four identical
 * rows. Each hit gets its UAT's name and county from the local UAT catalogue (public data, the
 * same names the local search joins), and an optional siruta keeps one UAT's hits. The central
 * search itself has no siruta filter: the narrowing applies to the page it answered (at most 50).
 */
import type { Db } from '../db/pool';
import { uatsBySiruta } from '../landreg/service';
import type { CentralSearchAnswer, CentralSearchHit } from './find';

export type NamedCentralHit = CentralSearchHit & { uatName: string | null; county: string | null };

export async function nameCentralHits(
  answer: CentralSearchAnswer,
  opts: { siruta?: number } = {},
  db: Db,
): Promise<Omit<CentralSearchAnswer, 'features'> & { features: NamedCentralHit[] }> {
  const kept = opts.siruta === undefined ? answer.features : answer.features.filter((f) => f.siruta === opts.siruta);
  const sirutas = [...new Set(kept.map((f) => f.siruta).filter((s) => Number.isInteger(s)))];
  const names = await uatsBySiruta(db, sirutas);
  return {
    ...answer,
    features: kept.map((f) => ({ ...f, uatName: names.get(f.siruta)?.name ?? null, county: names.get(f.siruta)?.county ?? null })),
  };
}
