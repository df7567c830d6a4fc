/**
 * buildingFactsFor (domain/enrichment/store.ts) against real PostGIS, in a scratch database:
 * a planted UAT with parcels and buildings matched by each of the three rules (IMMOVABLE_ID,
 * `<nr>-C<n>` number, a point inside the parcel), the traps between them (a building matched by
 * rules 2 and 3 at once, prefix look-alikes, inactive buildings, another UAT), and a random UAT
 * where the indexed UNION ALL lookups are compared with the single OR-join they replaced.
 */
import { scratchDatabase } from '../helpers/scratchDb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { migrate } from '../../domain/db/migrate';
import { createPool } from '../../domain/db/pool';
import { buildingFactsFor } from '../../domain/enrichment/store';
import type { BuildingFacts } from '../../domain/enrichment/rules';

const scratch = scratchDatabase('geoportal_enrich_bld_test');
const scratchUrl = scratch.url;

const SIRUTA = 900001;
const OTHER_SIRUTA = 900002;
const RANDOM_SIRUTA = 900003;

let pool: pg.Pool;
let nextObjectId = 1;

/** An axis-aligned square in EPSG:3844 (x0, y0 offsets from a point inside Romania). */
const square = (x0: number, y0: number, side: number) => {
  const [x, y] = [500000 + x0, 400000 + y0];
  return `POLYGON((${x} ${y}, ${x} ${y + side}, ${x + side} ${y + side}, ${x + side} ${y}, ${x} ${y}))`;
};

interface Planted {
  layer: 'TERENURI_ACTIVE' | 'CLADIRI_ACTIVE';
  siruta?: number;
  ref: string | null;
  immovableId?: string | null;
  isLegal?: string | null;
  wkt?: string | null;
  active?: boolean;
}

async function plant(f: Planted): Promise<string> {
  const attributes: Record<string, unknown> = {};
  if (f.immovableId != null) attributes.IMMOVABLE_ID = f.immovableId;
  if (f.isLegal != null) attributes.IS_LEGAL = f.isLegal;
  const r = await pool.query<{ id: string }>(
    `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, is_active, geom, attributes)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::text IS NULL THEN NULL ELSE ST_GeomFromText($6, 3844) END, $7::jsonb)
     RETURNING id`,
    [f.layer, f.siruta ?? SIRUTA, nextObjectId++, f.ref, f.active ?? true, f.wkt ?? null, JSON.stringify(attributes)],
  );
  return r.rows[0].id;
}

/** The single OR-join buildingFactsFor used before the indexed lookups: the reference semantics. */
async function orJoinFacts(siruta: number, parcelIds: string[]): Promise<Map<string, BuildingFacts>> {
  const out = new Map<string, BuildingFacts>(parcelIds.map((id) => [id, { count: 0, legal: null }]));
  const r = await pool.query<{ parcel_id: string; n: number; legal: number; known: number }>(
    `SELECT p.id AS parcel_id, count(b.id)::int AS n,
            count(*) FILTER (WHERE b.attributes->>'IS_LEGAL' = '1')::int AS legal,
            count(*) FILTER (WHERE b.attributes->>'IS_LEGAL' IN ('0', '1'))::int AS known
       FROM gis_features p
       JOIN gis_features b
         ON b.siruta = p.siruta AND b.layer_id = 'CLADIRI_ACTIVE' AND b.is_active
        AND (
              (b.attributes->>'IMMOVABLE_ID' IS NOT NULL AND b.attributes->>'IMMOVABLE_ID' = p.attributes->>'IMMOVABLE_ID')
           OR (b.attributes->>'IMMOVABLE_ID' IS NULL AND p.cadastral_ref IS NOT NULL
               AND regexp_replace(b.cadastral_ref, '-C[0-9]+$', '') = p.cadastral_ref)
           OR (b.attributes->>'IMMOVABLE_ID' IS NULL AND b.cadastral_ref !~ '-C[0-9]+$'
               AND p.geom IS NOT NULL AND b.geom IS NOT NULL AND ST_Intersects(p.geom, ST_PointOnSurface(b.geom)))
            )
      WHERE p.siruta = $1 AND p.id = ANY($2::uuid[])
      GROUP BY p.id`,
    [siruta, parcelIds],
  );
  for (const row of r.rows) out.set(row.parcel_id, { count: row.n, legal: row.known === row.n ? row.legal : null });
  return out;
}

beforeAll(async () => {
  await scratch.create();
  await migrate(scratchUrl);
  pool = createPool(scratchUrl, 2);
});

afterAll(async () => {
  await pool?.end();
  await scratch.drop();
});

describe('buildingFactsFor', () => {
  it('matches buildings by each rule, once each, with the precedence of the spec', async () => {
    const T = 'TERENURI_ACTIVE' as const;
    const C = 'CLADIRI_ACTIVE' as const;
    const A = square(0, 0, 100);
    const B = square(200, 0, 100);
    const inA = (i: number) => square(10 + 15 * i, 10, 10);
    const inB = (i: number) => square(210 + 15 * i, 10, 10);
    const inC = (i: number) => square(410 + 15 * i, 10, 10);
    const parcels = {
      p1: await plant({ layer: T, ref: '100', immovableId: '5001', wkt: A }),
      p2: await plant({ layer: T, ref: '200', wkt: B }),
      p3: await plant({ layer: T, ref: null, wkt: square(400, 0, 100) }),
      p4: await plant({ layer: T, ref: '400', immovableId: '5004', wkt: null }),
      p5: await plant({ layer: T, ref: '10', wkt: square(600, 0, 100) }),
      p6: await plant({ layer: T, ref: '600', immovableId: '5006', wkt: square(800, 0, 100) }),
    };
    // Rule 1 (IMMOVABLE_ID) wins over where the building lies and over its number.
    await plant({ layer: C, ref: '200-C1', immovableId: '5001', isLegal: '1', wkt: inB(0) });
    await plant({ layer: C, ref: null, immovableId: '5001', isLegal: '0', wkt: inA(0) });
    // Rule 2 (`<nr>-C<n>`) for buildings without IMMOVABLE_ID, wherever they lie.
    await plant({ layer: C, ref: '200-C2', isLegal: '1', wkt: inA(1) });
    await plant({ layer: C, ref: '100-C2', isLegal: '1', wkt: null });
    await plant({ layer: C, ref: '10-C12', isLegal: '1', wkt: square(1000, 0, 10) });
    await plant({ layer: C, ref: '400-C3', isLegal: '1', wkt: null });
    // A number without suffix equal to the parcel's, inside that parcel: rules 2 and 3 at once, counted once.
    await plant({ layer: C, ref: '200', isLegal: null, wkt: inB(1) });
    // The same number inside another parcel: rule 2 for p2 and rule 3 for p1.
    await plant({ layer: C, ref: '200', isLegal: '1', wkt: inA(2) });
    // Rule 3 only: numbers without a `-C<n>` suffix that match no parcel.
    await plant({ layer: C, ref: '777', isLegal: '0', wkt: inC(0) });
    await plant({ layer: C, ref: '100-Cx', isLegal: '1', wkt: inA(3) });
    // Matched by no rule: no number at all (NULL never passes `!~`), a suffix whose stripped number
    // names no parcel, inactive, another UAT.
    await plant({ layer: C, ref: null, isLegal: '1', wkt: inC(1) });
    await plant({ layer: C, ref: '100-C1-C2', isLegal: '1', wkt: inA(4) });
    await plant({ layer: C, ref: '100-C9', immovableId: '5001', isLegal: '1', wkt: inA(5), active: false });
    await plant({ layer: C, ref: '100-C3', immovableId: '5001', isLegal: '1', wkt: inA(5), siruta: OTHER_SIRUTA });
    // A parcel is not a building, even with the same IMMOVABLE_ID and inside.
    await plant({ layer: T, ref: '100-C4', immovableId: '5001', wkt: inA(5) });

    const ids = Object.values(parcels);
    const facts = await buildingFactsFor(pool, SIRUTA, ids);
    expect(Object.fromEntries(Object.entries(parcels).map(([k, id]) => [k, facts.get(id)]))).toEqual({
      p1: { count: 5, legal: 4 }, // 5001 ×2 (rule 1), 100-C2 (rule 2), 200 and 100-Cx inside (rule 3)
      p2: { count: 3, legal: null }, // 200-C2, 200 (rules 2+3, once, IS_LEGAL unknown), 200 inside p1
      p3: { count: 1, legal: 0 }, // 777 inside
      p4: { count: 1, legal: 1 }, // 400-C3; no geometry, no IMMOVABLE_ID building
      p5: { count: 1, legal: 1 }, // 10-C12 and not 100-C2
      p6: { count: 0, legal: null },
    });
    expect(facts).toEqual(await orJoinFacts(SIRUTA, ids));
    // Asked from another UAT, the parcels are not found: nothing is counted.
    expect([...(await buildingFactsFor(pool, OTHER_SIRUTA, ids)).values()].every((f) => f.count === 0)).toBe(true);
    expect((await buildingFactsFor(pool, SIRUTA, [])).size).toBe(0);
  });

  it('gives the same facts as the OR-join on a random UAT', async () => {
    // A deterministic pseudo-random UAT: a 12×12 grid of parcels (some without number, IMMOVABLE_ID
    // or geometry) and 600 buildings with random numbers, IMMOVABLE_IDs, flags and positions.
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    const N = 12;
    const ids: string[] = [];
    for (let i = 0; i < N * N; i++) {
      const [gx, gy] = [i % N, Math.floor(i / N)];
      ids.push(
        await plant({
          layer: 'TERENURI_ACTIVE',
          siruta: RANDOM_SIRUTA,
          ref: rnd() < 0.9 ? String(1000 + (i % 130)) : null, // a few numbers repeat
          immovableId: rnd() < 0.7 ? String(7000 + i) : null,
          wkt: rnd() < 0.95 ? square(gx * 50, gy * 50, 48 + (rnd() < 0.2 ? 10 : 0)) : null, // some overlap
        }),
      );
    }
    for (let k = 0; k < 600; k++) {
      // A third of the buildings lie in the grid cell of the parcel whose number they carry.
      const home = rnd() < 0.33 ? Math.floor(rnd() * N * N) : null;
      const n = home === null ? 1000 + Math.floor(rnd() * 140) : 1000 + (home % 130);
      const ref = pick([String(n), `${n}-C${1 + Math.floor(rnd() * 3)}`, `${n}-C`, `${n}-C1-C2`, `X${n}`, null]);
      const x = home === null ? rnd() * N * 50 : (home % N) * 50 + rnd() * 25;
      const y = home === null ? rnd() * N * 50 : Math.floor(home / N) * 50 + rnd() * 25;
      await plant({
        layer: 'CLADIRI_ACTIVE',
        siruta: RANDOM_SIRUTA,
        ref,
        immovableId: rnd() < 0.4 ? String(7000 + Math.floor(rnd() * N * N * 1.1)) : null,
        isLegal: pick(['0', '1', '1', null, '2']),
        wkt: rnd() < 0.9 ? square(x, y, 3 + rnd() * 20) : null,
        active: rnd() < 0.95,
      });
    }
    const facts = await buildingFactsFor(pool, RANDOM_SIRUTA, ids);
    const reference = await orJoinFacts(RANDOM_SIRUTA, ids);
    expect(facts).toEqual(reference);
    // The random UAT exercises every rule.
    expect([...reference.values()].filter((f) => f.count > 0).length).toBeGreaterThan(N * N * 0.8);
  });
});
