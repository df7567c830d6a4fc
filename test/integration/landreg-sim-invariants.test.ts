/**
 * Data invariants of the land-registry simulator, checked over HTTP the way a user of the
 * simulator sees the data (README paths only): geometry (parcels inside their real UAT
 * boundary, no overlapping parcels, buildings inside their parcels), ownership shares, the
 * repeated cadastral number, immovables without geometry, both diacritic spellings,
 * determinism by seed, and every fault of /__sim/faults taking effect and clearing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import { API, SimClient } from '../helpers/landregSimClient';
import { boxOf, candidatePairs, clipConvex, convexHull, distanceToRings, pointInRings, ringArea, type Pt, type Ring } from '../helpers/planar';

/** Three demo UATs of the three demo counties: a municipality, a Danube-side commune, a town. */
const UATS = [
  { siruta: 63394, name: 'Sfântu Gheorghe', workspaceId: 145 },
  { siruta: 42708, name: 'Chiscani', workspaceId: 92 },
  { siruta: 100576, name: 'Buftea', workspaceId: 234 },
];
/** Metres: coordinates are served to the centimetre, so edges shared by neighbours may jitter. */
const TOLERANCE_M = 0.05;

let sim: LandregSimulator;
let c: SimClient;

interface UatGeometry {
  boundary: Ring[];
  parcels: Array<{ id: number; immovableId: number; ring: Ring | null }>;
  buildings: Array<{ id: number; immovableId: number; ring: Ring | null }>;
}
const geometry = new Map<number, UatGeometry>();

/** First ring of an ESRI polygon, without its closing vertex. */
const firstRing = (g: any): Ring | null => (g?.rings?.[0] ? (g.rings[0] as Pt[]).slice(0, -1) : null);

beforeAll(async () => {
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
  c = new SimClient(sim.url);
  await c.login();
  for (const u of UATS) {
    const where = `ADMIN_UNIT_ID=${u.siruta}`;
    const uat = await c.json(c.query('LIMITE_UAT', { where, outFields: '*' }));
    const boundary = (uat.features[0].geometry.rings as Pt[][]).map((r) => r.slice(0, -1));
    const read = async (layer: string) =>
      (await c.pageAll(layer, { where, outFields: 'OBJECTID,IMMOVABLE_ID' })).features.map((f) => ({
        id: f.attributes.OBJECTID as number,
        immovableId: f.attributes.IMMOVABLE_ID as number,
        ring: firstRing(f.geometry),
      }));
    geometry.set(u.siruta, { boundary, parcels: await read('TERENURI_ACTIVE'), buildings: await read('CLADIRI_ACTIVE') });
  }
});

afterAll(async () => {
  await sim?.close();
});

describe.each(UATS)('geometry of $name ($siruta)', ({ siruta }) => {
  test('every parcel lies inside the real UAT boundary', () => {
    const { boundary, parcels } = geometry.get(siruta)!;
    const boundaryPoints = boundary.flat();
    let checked = 0;
    const outside: number[] = [];
    for (const p of parcels) {
      if (!p.ring) continue;
      checked++;
      // No parcel vertex outside the boundary, and no boundary vertex poking into the parcel.
      const vertexOut = p.ring.some(([x, y]) => !pointInRings(x, y, boundary) && distanceToRings(x, y, boundary) > TOLERANCE_M);
      const hull = convexHull(p.ring);
      const b = boxOf(hull);
      const boundaryIn = boundaryPoints.some(
        ([x, y]) => x > b.minX && x < b.maxX && y > b.minY && y < b.maxY && pointInRings(x, y, [hull]) && distanceToRings(x, y, [hull]) > TOLERANCE_M,
      );
      if (vertexOut || boundaryIn) outside.push(p.id);
    }
    expect(checked).toBeGreaterThan(250);
    expect(outside).toEqual([]);
  });

  test('parcels do not overlap beyond a small tolerance', () => {
    const { parcels } = geometry.get(siruta)!;
    // Convex hulls: a bow-tie ring's hull is the plot it was drawn over, so invalid rings are
    // judged by the land they claim (and the overlap found is an upper bound).
    const hulls = parcels.filter((p) => p.ring).map((p) => ({ id: p.id, hull: convexHull(p.ring!) }));
    const pairs = candidatePairs(hulls.map((h) => boxOf(h.hull)), 100);
    let total = 0;
    let worst = 0;
    for (const [i, j] of pairs) {
      const overlap = clipConvex(hulls[i].hull, hulls[j].hull);
      const area = overlap.length >= 3 ? ringArea(overlap) : 0;
      total += area;
      worst = Math.max(worst, area);
    }
    const parcelArea = hulls.reduce((s, h) => s + ringArea(h.hull), 0);
    expect(pairs.length).toBeGreaterThan(hulls.length); // neighbours touch: the check is not vacuous
    expect(worst).toBeLessThan(1); // m²: centimetre rounding along a shared edge at most
    expect(total / parcelArea).toBeLessThan(1e-4);
  });

  test('every building lies inside the parcel of its immovable', () => {
    const { parcels, buildings } = geometry.get(siruta)!;
    const hostOf = new Map(parcels.map((p) => [p.immovableId, p]));
    let checked = 0;
    const stray: number[] = [];
    for (const b of buildings) {
      const host = hostOf.get(b.immovableId);
      expect(host).toBeDefined();
      if (!b.ring || !host?.ring) continue; // a parcel with a null geometry cannot host anything
      checked++;
      const hull = convexHull(host.ring);
      if (b.ring.some(([x, y]) => !pointInRings(x, y, [hull]) && distanceToRings(x, y, [hull]) > TOLERANCE_M)) stray.push(b.id);
    }
    expect(checked).toBeGreaterThan(buildings.length * 0.95);
    expect(stray).toEqual([]);
  });
});

test('invalid (self-intersecting) rings and null geometries occur, but rarely', () => {
  let parcels = 0;
  let nulls = 0;
  let bowTies = 0;
  for (const { parcels: list } of geometry.values()) {
    for (const p of list) {
      parcels++;
      if (!p.ring) nulls++;
      // A bow tie's shoelace area cancels out; its hull keeps the plot's area.
      else if (ringArea(p.ring) < 0.5 * ringArea(convexHull(p.ring))) bowTies++;
    }
  }
  expect(nulls).toBeGreaterThan(0);
  expect(bowTies).toBeGreaterThan(0);
  expect(nulls / parcels).toBeLessThan(0.01);
  expect(bowTies / parcels).toBeLessThan(0.01);
});

describe('registry data', () => {
  test('active inscriptions share the immovable exactly (sum 1) and owners use both diacritic spellings', async () => {
    const names: string[] = [];
    const statuses = new Set<number>();
    let sampled = 0;
    for (const u of UATS) {
      const list = await c.json(`${API}/immovable/list?workspaceId=${u.workspaceId}&adminUnitId=${u.siruta}&page=0&size=1000`);
      const last = await c.json(`${API}/immovable/list?workspaceId=${u.workspaceId}&adminUnitId=${u.siruta}&page=${list.totalPages - 1}&size=1000`);
      // Every 15th of the first thousand plus the tail (the immovables without geometry).
      const sample = [...list.content.filter((_: unknown, i: number) => i % 15 === 0), ...last.content.slice(-15)];
      for (const item of sample) {
        const { nodes } = await c.json(`${API}/immovable/ownership?immovablePk=${item.immovablePk}`);
        const byId = new Map<number, any>(nodes.map((n: any) => [n.nodeId, n]));
        let active = 0;
        for (const n of nodes.filter((x: any) => x.nodeType === 'PERSON')) {
          const inscription = byId.get(n.parentNodeId);
          expect(inscription.nodeType).toBe('INSCRIPTION');
          expect(byId.get(inscription.parentNodeId).nodeType).toBe('IMMOVABLE');
          expect(n.nodeStatus).toBe(inscription.nodeStatus);
          expect(n.person.share).toBe(`${n.person.shareNumerator}/${n.person.shareDenominator}`);
          statuses.add(inscription.nodeStatus);
          if (inscription.nodeStatus === 0) active += n.person.shareNumerator / n.person.shareDenominator;
          names.push(n.person.name);
        }
        expect(active).toBeCloseTo(1, 9);
        sampled++;
      }
    }
    expect(sampled).toBeGreaterThan(150);
    expect(statuses).toEqual(new Set([-1, 0, 2]));
    const all = names.join(' ');
    for (const letter of [/[șȘ]/, /[şŞ]/, /[țȚ]/, /[ţŢ]/]) expect(all).toMatch(letter);
  });

  test('cadastral number 1000 is on 200+ parcels, in every UAT that holds data', async () => {
    const { uats } = await c.control('GET', '/truth');
    const where = "NATIONAL_CADASTRAL_REFERENCE = '1000'";
    const { objectIds } = await c.json(c.query('TERENURI_ACTIVE', { where, returnIdsOnly: 'true' }));
    expect(objectIds.length).toBeGreaterThanOrEqual(200);
    const { features } = await c.pageAll('TERENURI_ACTIVE', { where, outFields: 'ADMIN_UNIT_ID,NATIONAL_CADASTRAL_REFERENCE', returnGeometry: 'false' });
    expect(features).toHaveLength(objectIds.length);
    expect(new Set(features.map((f) => f.attributes.NATIONAL_CADASTRAL_REFERENCE))).toEqual(new Set(['1000']));
    expect(new Set(features.map((f) => f.attributes.ADMIN_UNIT_ID))).toEqual(new Set(uats.map((u: any) => u.siruta)));
  });

  test('every demo UAT lists 5-15% more immovables than it has parcels (those without geometry)', async () => {
    const { uats } = await c.control('GET', '/truth');
    expect(uats.length).toBe(129);
    const ratios: number[] = [];
    for (const u of uats) {
      const list = await c.json(`${API}/immovable/list?workspaceId=${u.workspaceId}&adminUnitId=${u.siruta}&page=0&size=1`);
      const parcels = u.counts.TERENURI_ACTIVE;
      const withoutGeometry = list.totalElements - parcels;
      // Whole immovables: the share is 5-15% of the parcel count, rounded.
      expect(withoutGeometry).toBeGreaterThanOrEqual(Math.floor(parcels * 0.05));
      expect(withoutGeometry).toBeLessThanOrEqual(Math.ceil(parcels * 0.15));
      ratios.push(withoutGeometry / parcels);
    }
    // Spread over the range rather than one constant.
    expect(Math.min(...ratios)).toBeLessThan(0.08);
    expect(Math.max(...ratios)).toBeGreaterThan(0.12);
  });
});

describe('determinism', () => {
  /** Answers a user would compare: layer pages, ids, counts, registry, searches, RGI. */
  const samplePaths = (client: SimClient) => [
    client.query('TERENURI_ACTIVE', { where: 'ADMIN_UNIT_ID=63394', outFields: '*', resultOffset: '1000' }),
    client.query('CLADIRI_ACTIVE', { where: 'ADMIN_UNIT_ID=42708', outFields: '*' }),
    client.query('STRAZI', { where: 'ADMIN_UNIT_ID=100576', outFields: '*' }),
    client.query('LIMITE_INTRAV_DYNAMIC', { where: 'ADMIN_UNIT_ID IN (42708, 100576)', outFields: '*' }),
    client.query('TERENURI_ACTIVE', { where: 'WORKSPACE_ID=234', returnIdsOnly: 'true' }),
    client.query('TERENURI_ACTIVE', { where: "ADMIN_UNIT_ID=63394 AND VALID_FROM > date '2020-01-01'", returnCountOnly: 'true' }),
    `${API}/immovable/list?workspaceId=145&adminUnitId=63394&page=2&size=100`,
    `${API}/immovable/search?workspaceId=92&cadastralNumbers=1000`,
    `${API}/immovable/search-owner?workspaceId=234&adminUnitId=100576&name=popescu`,
    `${API}/rgi/applications?workspaceId=145&orgUnitId=145002&year=2024&page=0&size=50`,
  ];

  test('the same seed answers byte-identical bodies, whatever order the UATs are first asked in', async () => {
    const twin = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
    try {
      const t = new SimClient(twin.url);
      await t.login();
      const ours = samplePaths(c);
      const theirs = samplePaths(t);
      const pk = (await c.json(ours[6])).content[7].immovablePk;
      ours.push(`${API}/immovable/details?immovablePk=${pk}`, `${API}/immovable/ownership?immovablePk=${pk}`);
      theirs.push(`${API}/immovable/details?immovablePk=${pk}`, `${API}/immovable/ownership?immovablePk=${pk}`);
      const a: string[] = [];
      for (const p of ours) a.push(await c.text(p));
      const b: string[] = [];
      for (let i = theirs.length - 1; i >= 0; i--) b[i] = await t.text(theirs[i]);
      for (let i = 0; i < a.length; i++) expect({ path: ours[i], same: b[i] === a[i], bytes: a[i].length }).toEqual({ path: ours[i], same: true, bytes: a[i].length });
    } finally {
      await twin.close();
    }
  });

  test('another seed answers other data over the same real boundaries', async () => {
    const other = await startLandregSimulator({ port: 0, seed: 7, scale: 'demo' });
    try {
      const o = new SimClient(other.url);
      await o.login();
      const ours = samplePaths(c);
      const theirs = samplePaths(o);
      // OBJECTID ranges and counts per UAT do not depend on the seed; everything drawn does.
      for (const i of [0, 1, 2, 3, 5, 6, 7, 8, 9]) {
        const same = (await o.text(theirs[i])) === (await c.text(ours[i]));
        expect({ path: ours[i], same }).toEqual({ path: ours[i], same: false });
      }
      const boundary = c.query('LIMITE_UAT', { where: 'ADMIN_UNIT_ID=63394', outFields: 'OBJECTID,NAME,AREA_VALUE' });
      expect(await o.text(boundary)).toBe(await c.text(boundary));
    } finally {
      await other.close();
    }
  });
});

describe('fault injection takes effect and clears', () => {
  const account = `${API}/account`;
  const timed = async (path: string) => {
    const t0 = performance.now();
    const res = await c.get(path);
    await res.arrayBuffer();
    // The delay the simulator says it added; the clock only bounds it from below (a loaded machine adds its own).
    return { status: res.status, ms: performance.now() - t0, delayed: Number(res.headers.get('x-sim-delay-ms') ?? 0) };
  };

  test('errorRate: 1 fails every call with 500 JSON, a fraction fails some, clearing ends it', async () => {
    try {
      await c.control('POST', '/faults', { errorRate: 1 });
      for (let i = 0; i < 5; i++) {
        const res = await c.get(account);
        expect(res.status).toBe(500);
        expect((await res.json()).status).toBe(500);
      }
      await c.control('POST', '/faults', { errorRate: 0.3 });
      const statuses = [];
      for (let i = 0; i < 40; i++) statuses.push((await timed(account)).status);
      expect(statuses).toContain(500);
      expect(statuses).toContain(200);
      expect(new Set(statuses)).toEqual(new Set([200, 500]));
    } finally {
      await c.control('DELETE', '/faults');
    }
    for (let i = 0; i < 10; i++) expect((await timed(account)).status).toBe(200);
  });

  test('latencyMs delays every call until cleared', async () => {
    try {
      expect((await c.control('POST', '/faults', { latencyMs: 250 })).latencyMs).toBe(250);
      for (let i = 0; i < 3; i++) {
        const t = await timed(account);
        expect(t.delayed).toBe(250);
        expect(t.ms).toBeGreaterThanOrEqual(240);
      }
    } finally {
      await c.control('DELETE', '/faults');
    }
    for (let i = 0; i < 3; i++) expect((await timed(account)).delayed).toBe(0);
  });

  test('slowEvery makes exactly every n-th call slow until cleared', async () => {
    try {
      await c.control('DELETE', '/faults'); // restarts the call count
      await c.control('POST', '/faults', { slowEvery: 3, slowMs: 300 });
      const slow: number[] = [];
      for (let i = 1; i <= 7; i++) {
        const t = await timed(account);
        if (t.delayed > 0) {
          expect(t.delayed).toBe(300);
          expect(t.ms).toBeGreaterThanOrEqual(290);
          slow.push(i);
        }
      }
      expect(slow).toEqual([3, 6]);
    } finally {
      await c.control('DELETE', '/faults');
    }
    for (let i = 0; i < 4; i++) expect((await timed(account)).delayed).toBe(0);
  });

  test('maintenance answers 503 HTML to every call including login, until cleared', async () => {
    try {
      await c.control('POST', '/faults', { maintenance: true });
      const login = await fetch(`${sim.url}${API}/authentication`, { method: 'POST', body: new URLSearchParams({ j_username: 'x', j_password: 'y' }) });
      expect(login.status).toBe(503);
      expect(await login.text()).toContain('mentenanță');
      const q = await c.get(c.query('TERENURI_ACTIVE', { where: '1=1', returnCountOnly: 'true' }));
      expect(q.status).toBe(503);
      expect(q.headers.get('content-type')).toMatch(/text\/html/);
      expect(await q.text()).toContain('mentenanță');
    } finally {
      await c.control('DELETE', '/faults');
    }
    expect((await c.get(account)).status).toBe(200);
  });

  test('sessionTtlSeconds shortens the idle lifetime while set; cleared, the default applies again', async () => {
    const s = new SimClient(sim.url);
    try {
      await c.control('POST', '/faults', { sessionTtlSeconds: 1 });
      const login = await fetch(`${sim.url}${API}/authentication`, { method: 'POST', body: new URLSearchParams({ j_username: 'geoportal', j_password: 'parola-portal' }) });
      expect((await login.json()).sessionTimeoutSeconds).toBe(1);
      await s.login();
      await new Promise((r) => setTimeout(r, 1300));
      expect((await s.get(account)).status).toBe(401);
    } finally {
      await c.control('DELETE', '/faults');
    }
    await s.login();
    await new Promise((r) => setTimeout(r, 1300));
    expect((await s.get(account)).status).toBe(200);
  });

  test('duplicatePages (opt-in) overlaps consecutive unordered pages by one feature until cleared', async () => {
    const where = 'ADMIN_UNIT_ID=63394';
    const exact = await c.pageAll('TERENURI_ACTIVE', { where, outFields: 'OBJECTID', returnGeometry: 'false' });
    const { count } = await c.json(c.query('TERENURI_ACTIVE', { where, returnCountOnly: 'true' }));
    expect(exact.features).toHaveLength(count);
    expect((await c.control('GET', '/faults')).duplicatePages).toBeUndefined();
    try {
      expect((await c.control('POST', '/faults', { duplicatePages: true })).duplicatePages).toBe(true);
      const dup = await c.pageAll('TERENURI_ACTIVE', { where, outFields: 'OBJECTID', returnGeometry: 'false' });
      const ids = dup.features.map((f) => f.attributes.OBJECTID);
      expect(ids.length).toBe(count + dup.pages.length - 1);
      expect(new Set(ids).size).toBe(count);
      for (let i = 1; i < dup.pages.length; i++) expect(dup.pages[i][0]).toBe(dup.pages[i - 1].at(-1));
      // Counts and id lists are not paged, so they stay exact; so does an ordered page-through.
      expect((await c.json(c.query('TERENURI_ACTIVE', { where, returnCountOnly: 'true' }))).count).toBe(count);
      const ordered = await c.pageAll('TERENURI_ACTIVE', { where, outFields: 'OBJECTID', returnGeometry: 'false', orderByFields: 'OBJECTID ASC' });
      expect(ordered.features.map((f) => f.attributes.OBJECTID)).toEqual(exact.features.map((f) => f.attributes.OBJECTID));
    } finally {
      await c.control('DELETE', '/faults');
    }
    const after = await c.pageAll('TERENURI_ACTIVE', { where, outFields: 'OBJECTID', returnGeometry: 'false' });
    expect(after.features).toHaveLength(count);
  });

  test('holdSirutas keeps a held UAT\'s queries unanswered until a change of faults releases it; other UATs answer meanwhile', async () => {
    const count = (siruta: number) => c.json<{ count: number }>(c.query('TERENURI_ACTIVE', { where: `ADMIN_UNIT_ID=${siruta}`, returnCountOnly: 'true' }));
    const before = (await count(UATS[0].siruta)).count;
    let answered = false;
    try {
      await c.control('POST', '/faults', { holdSirutas: [UATS[0].siruta] });
      const held = count(UATS[0].siruta).then((r) => ((answered = true), r));
      // Another UAT, and a change of faults that still lists the held one, leave it held.
      expect((await count(UATS[1].siruta)).count).toBeGreaterThan(0);
      await c.control('POST', '/faults', { latencyMs: 0 });
      expect((await count(UATS[2].siruta)).count).toBeGreaterThan(0);
      expect(answered).toBe(false);
      await c.control('POST', '/faults', { holdSirutas: [] });
      expect(await held).toEqual({ count: before });
    } finally {
      await c.control('DELETE', '/faults');
    }
  });

  test('reset clears every fault', async () => {
    await c.control('POST', '/faults', { errorRate: 1, latencyMs: 50, duplicatePages: true, maintenance: true });
    await c.control('POST', '/reset', {});
    expect(await c.control('GET', '/faults')).toEqual({ maintenance: false, errorRate: 0, latencyMs: 0 });
    await c.login(); // reset also ends every session
    expect((await c.get(account)).status).toBe(200);
  });
});
