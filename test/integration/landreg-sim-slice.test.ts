/**
 * The land-registry simulator's `slice` scale (issue 32 item 1, docs/simulators.md "Scales"): the
 * country slice the scale bench loads — at least 150 real UATs of at least 4 whole counties, at
 * least 2 M parcels, denser in towns than in communes — and a slice UAT answered consistently over
 * HTTP (count, ids, grouped statistics and the truth agree, and match the UAT's planned size). The
 * store keeps the generated slice UATs within a parcel budget, regenerating an evicted UAT
 * identically and never evicting one changed through /__sim/mutate.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { sliceTarget } from '../../simulators/landreg/generator';
import { Nomenclature } from '../../simulators/landreg/nomenclature';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import { SimStore } from '../../simulators/landreg/store';

const API = '/eterra/api';
const LAYER = 'TERENURI_ACTIVE';

interface SliceUat {
  siruta: number;
  name: string;
  county: string;
  workspaceId: number;
  type: number;
  villages: number;
  areaKm2: number;
  targetParcels: number;
}

let sim: LandregSimulator;
let cookie = '';
let uats: SliceUat[] = [];

async function json(path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${sim.url}${path}`, { ...init, headers: { cookie, ...(init.headers ?? {}) } });
  expect(res.status).toBe(200);
  return res.json();
}

const query = (params: Record<string, string>) => `${API}/map/rest/${LAYER}/query?${new URLSearchParams({ f: 'json', ...params })}`;
const density = (u: SliceUat) => u.targetParcels / u.areaKm2;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

beforeAll(async () => {
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'slice' });
  const login = await fetch(`${sim.url}${API}/authentication`, {
    method: 'POST',
    body: new URLSearchParams({ j_username: config.landreg.username, j_password: config.landreg.password }),
  });
  expect(login.status).toBe(200);
  cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const answer = await json('/__sim/uats');
  expect(answer.scale).toBe('slice');
  uats = answer.uats;
});

afterAll(async () => {
  await sim.close();
});

describe('the slice scale', () => {
  test('spans at least 150 UATs of at least 4 whole counties and at least 2 M parcels', async () => {
    expect(uats.length).toBeGreaterThanOrEqual(150);
    const counties = new Set(uats.map((u) => u.workspaceId));
    expect(counties.size).toBeGreaterThanOrEqual(4);
    // Whole counties: every UAT the nomenclature lists for them.
    const nom = new Nomenclature(config.landreg.simDataDir);
    for (const ws of counties) expect(uats.filter((u) => u.workspaceId === ws)).toHaveLength(nom.county(ws)!.uats.length);
    expect(uats.reduce((s, u) => s + u.targetParcels, 0)).toBeGreaterThanOrEqual(2_000_000);
    expect((await json('/__sim/info')).dataUats).toBe(uats.length);
  });

  test('towns and cities are denser than communes, and a commune with more villages holds more', () => {
    const communes = uats.filter((u) => u.type === 3);
    const seats = uats.filter((u) => u.type === 1);
    const towns = uats.filter((u) => u.type === 2 || u.type === 4);
    expect(communes.length).toBeGreaterThan(100);
    expect(seats.length).toBeGreaterThanOrEqual(4);
    expect(median(seats.map(density))).toBeGreaterThan(3 * median(towns.map(density)));
    expect(median(towns.map(density))).toBeGreaterThan(1.5 * median(communes.map(density)));
    const byVillages = [...communes].sort((a, b) => a.villages - b.villages);
    const few = byVillages.slice(0, 20);
    const many = byVillages.slice(-20);
    expect(median(many.map((u) => u.targetParcels / u.areaKm2))).toBeGreaterThan(median(few.map((u) => u.targetParcels / u.areaKm2)));
  });

  test('the density rule over the whole nomenclature gives about the country’s 16 M parcels', () => {
    const nom = new Nomenclature(config.landreg.simDataDir);
    const total = nom.uats.reduce((s, u) => s + sliceTarget(u, nom.projected(u).area), 0);
    expect(total).toBeGreaterThan(14_000_000);
    expect(total).toBeLessThan(18_000_000);
  });

  test.each([
    ['the smallest commune', (u: SliceUat) => u.type === 3],
    ['the smallest town', (u: SliceUat) => u.type !== 3],
  ])('%s answers count, ids, grouped statistics and truth alike, at its planned size', async (_label, pick) => {
    const uat = uats.filter(pick).sort((a, b) => a.targetParcels - b.targetParcels)[0];
    const where = `ADMIN_UNIT_ID=${uat.siruta}`;
    const count = (await json(query({ where, returnCountOnly: 'true' }))).count as number;
    const ids = (await json(query({ where, returnIdsOnly: 'true' }))).objectIds as number[];
    const truth = (await json(`/__sim/truth?siruta=${uat.siruta}&layerId=${LAYER}`)).features as Array<{ objectId: number }>;
    expect(count).toBe(uat.targetParcels);
    expect(new Set(ids)).toEqual(new Set(truth.map((f) => f.objectId)));
    expect(ids).toHaveLength(count);
    const stats = await json(
      query({
        where: `ADMIN_UNIT_ID IN (${uat.siruta})`,
        outStatistics: JSON.stringify([{ statisticType: 'count', onStatisticField: 'OBJECTID', outStatisticFieldName: 'N' }]),
        groupByFieldsForStatistics: 'ADMIN_UNIT_ID',
      }),
    );
    expect(stats.features).toEqual([{ attributes: { ADMIN_UNIT_ID: uat.siruta, N: count } }]);
    const page = await json(query({ where, outFields: '*', resultRecordCount: '10' }));
    expect(page.features).toHaveLength(10);
    for (const f of page.features) expect(f.attributes.ADMIN_UNIT_ID).toBe(uat.siruta);
  });
});

describe('the slice store', () => {
  const nom = new Nomenclature(config.landreg.simDataDir);
  const parcelsOf = (store: SimStore, siruta: number) => store.get(siruta)!.layers.get(LAYER)!.features;

  test('keeps generated UATs within its parcel budget, regenerates an evicted one identically and keeps a changed one', () => {
    const probe = new SimStore(nom, 42, 'slice');
    const small = probe
      .dataUats()
      .filter((u) => u.type === 3)
      .sort((a, b) => probe.target(a) - probe.target(b))
      .slice(0, 4);
    const budget = probe.target(small[0]) + probe.target(small[1]);
    const store = new SimStore(nom, 42, 'slice', budget);
    const generated = store.get(small[0].siruta)!;
    const first = parcelsOf(store, small[0].siruta).map((f) => [f.objectId, f.attributes.NATIONAL_CADASTRAL_REFERENCE]);
    // A UAT changed through /__sim/mutate: generated, then pinned, as the server does.
    const pinned = store.get(small[1].siruta)!;
    store.pin(small[1].siruta);
    for (const u of small.slice(2)) store.get(u.siruta);
    // Two more UATs, each at least as large as the first two, overflow the budget: the least
    // recently used unpinned UAT (the first) went, the pinned one stayed.
    expect(store.cachedCount()).toBeLessThanOrEqual(3);
    expect(store.get(small[1].siruta)).toBe(pinned);
    expect(store.get(small[0].siruta)).not.toBe(generated);
    const again = parcelsOf(store, small[0].siruta).map((f) => [f.objectId, f.attributes.NATIONAL_CADASTRAL_REFERENCE]);
    expect(again).toEqual(first);
  });
});
