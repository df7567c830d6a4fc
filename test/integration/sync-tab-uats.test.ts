/**
 * The sync tab's table of the store's UATs a page at a time (web/app/components/sync/SyncTab.tsx
 * `UatTableControls`, domain/landreg/summary.ts `storeUatsPage`): an office that synced whole
 * counties holds thousands of UATs, and the tab listed every one of them on every load (the
 * whole store's db-summary built, sent and rendered). Now 50 a page, in db-summary's order, found
 * by name, county or SIRUTA, each with its parcels and buildings as db-summary counts them.
 *
 * The real app with the built UI in this process (test/helpers/webApp.ts) over the stack's
 * PostgreSQL, with 120 planted UATs of one made-up county.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { startWebApp, type WebApp } from '../helpers/webApp';

const FIRST = 7_320_000;
const COUNT = 120;
let app: WebApp;
let dan: TestSession;

const name = (k: number) => `Paginare Sat ${String(k).padStart(3, '0')}`;

beforeAll(async () => {
  app = await startWebApp();
  const db = app.store.pool;
  await db.query(
    `INSERT INTO gis_uats (siruta, name, county) SELECT $1 + k, 'Paginare Sat ' || lpad(k::text, 3, '0'), 'Pagineşti' FROM generate_series(0, $2 - 1) k
     ON CONFLICT (siruta) DO NOTHING`,
    [FIRST, COUNT],
  );
  // Each UAT k holds k + 1 parcels and one building.
  await db.query(
    `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref)
     SELECT 'TERENURI_ACTIVE', $1 + k, n, (900000 + n)::text FROM generate_series(0, $2 - 1) k, generate_series(1, k + 1) n
     UNION ALL SELECT 'CLADIRI_ACTIVE', $1 + k, 1, '900001-C1' FROM generate_series(0, $2 - 1) k`,
    [FIRST, COUNT],
  );
  dan = await createTestSessionRecord({ email: 'paginare-dan@birou.ro', name: 'Dan Paginare', company: 'U' });
}, 60_000);

afterAll(async () => {
  await app?.store.pool.query(`DELETE FROM gis_features WHERE siruta BETWEEN $1 AND $2`, [FIRST, FIRST + COUNT - 1]);
  await app?.store.pool.query(`DELETE FROM gis_uats WHERE siruta BETWEEN $1 AND $2`, [FIRST, FIRST + COUNT - 1]);
  await dan?.end();
  await app?.close();
});

/** The planted UATs' rows of the table as the page lists them: name, parcels, buildings. */
async function table(query: string): Promise<{ status: number; text: string; rows: Array<[string, string, string]> }> {
  const r = await app.get(`/parcel-sync?${query}`, dan);
  const rows = [...r.text.matchAll(/<tr><td>(Paginare Sat \d{3})(?:<!-- -->)? <span class="muted">\((?:<!-- -->)?\d+(?:<!-- -->)?\)<\/span><\/td><td>[^<]*<\/td><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td>/g)].map(
    (m) => [m[1], m[2], m[3]] as [string, string, string],
  );
  return { status: r.status, text: r.text, rows };
}

describe("the sync tab's table of the store's UATs", () => {
  test('fifty a page in the summary’s order, each with its parcels and buildings; the next pages and the last', async () => {
    const one = await table('uatQ=paginesti');
    expect(one.status).toBe(200);
    expect(one.rows.map((r) => r[0])).toEqual(Array.from({ length: 50 }, (_, k) => name(k)));
    expect(one.rows[9]).toEqual(['Paginare Sat 009', '10', '1']);
    expect(one.text).toMatch(/UAT-urile (<!-- -->)?1(<!-- -->)?–(<!-- -->)?50(<!-- -->)? din (<!-- -->)?120/);
    expect(one.text).toContain('href="/parcel-sync?uatQ=paginesti&amp;uatPage=2"');

    const last = await table('uatQ=paginesti&uatPage=3');
    expect(last.rows.map((r) => r[0])).toEqual(Array.from({ length: 20 }, (_, k) => name(100 + k)));
    expect(last.rows[19]).toEqual(['Paginare Sat 119', '120', '1']);
    expect(last.text).not.toContain('rel="next"');
    // A page past the last is the last.
    expect((await table('uatQ=paginesti&uatPage=99')).rows).toEqual(last.rows);
    for (const far of ['1e300', 'Infinity', '9007199254740993']) {
      const r = await table(`uatQ=paginesti&uatPage=${far}`);
      expect({ far, status: r.status, rows: r.rows }).toEqual({ far, status: 200, rows: last.rows });
    }
  });

  test('by name without diacritics, or by SIRUTA; a search that matches nothing says so', async () => {
    expect((await table('uatQ=PAGINARE%20SAT%2007')).rows.map((r) => r[0])).toEqual(Array.from({ length: 10 }, (_, k) => name(70 + k)));
    expect((await table(`uatQ=${FIRST + 42}`)).rows.map((r) => r[0])).toEqual([name(42)]);
    // `_` and `%` are letters of the search, not wildcards: no UAT is named with an underscore.
    for (const q of ['Paginare_Sat', 'Paginare%25Sat']) {
      const none = await table(`uatQ=${q}`);
      expect({ q, rows: none.rows }).toEqual({ q, rows: [] });
      expect(none.text).toContain('data-testid="sync-uats-none"');
    }
  });
});
