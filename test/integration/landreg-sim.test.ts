import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import { config } from '../../domain/config';

const API = '/eterra/api';
const SFANTU_GHEORGHE = 63394; // county-seat municipality of Covasna: 2,400 parcels at demo scale
const COVASNA = 145;

let sim: LandregSimulator;
let cookie = '';

async function login(base = sim.url): Promise<string> {
  const res = await fetch(`${base}${API}/authentication`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ j_username: config.landreg.username, j_password: config.landreg.password }),
  });
  expect(res.status).toBe(200);
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0];
}

async function get(path: string, c = cookie, base = sim.url) {
  return fetch(`${base}${path}`, { headers: { cookie: c } });
}

async function json(path: string, c = cookie, base = sim.url): Promise<any> {
  const res = await get(path, c, base);
  expect(res.status).toBe(200);
  return res.json();
}

async function control(method: string, path: string, body?: unknown, base = sim.url): Promise<any> {
  const res = await fetch(`${base}/__sim${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  expect(res.status).toBe(200);
  return res.json();
}

const query = (layer: string, params: Record<string, string>) =>
  `${API}/map/rest/${layer}/query?${new URLSearchParams({ f: 'json', ...params })}`;

beforeAll(async () => {
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
  cookie = await login();
});

afterAll(async () => {
  await sim?.close();
});

describe('session protocol', () => {
  test('login with form credentials sets a JSESSIONID cookie that opens the API', async () => {
    expect(cookie).toMatch(/^JSESSIONID=[0-9A-F]{32}$/);
    const me = await json(`${API}/account`);
    expect(me.username).toBe(config.landreg.username);
  });

  test('wrong credentials answer 401', async () => {
    const res = await fetch(`${sim.url}${API}/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'j_username=geoportal&j_password=gresit',
    });
    expect(res.status).toBe(401);
  });

  test('a call without a session answers 401', async () => {
    expect((await get(`${API}/adm/nomen/workspaces`, '')).status).toBe(401);
  });

  test('an idle session expires and then answers 401 until the client logs in again', async () => {
    await control('POST', '/faults', { sessionTtlSeconds: 1 });
    try {
      const c = await login();
      expect((await get(`${API}/account`, c)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1300));
      expect((await get(`${API}/account`, c)).status).toBe(401);
      const again = await login();
      expect((await get(`${API}/account`, again)).status).toBe(200);
    } finally {
      await control('DELETE', '/faults');
    }
  });

  test('logout ends the session', async () => {
    const c = await login();
    await fetch(`${sim.url}${API}/logout`, { method: 'POST', headers: { cookie: c } });
    expect((await get(`${API}/account`, c)).status).toBe(401);
  });
});

describe('nomenclature and catalog', () => {
  test('lists 42 workspaces, their 3186 UATs and 31 layers in four categories', async () => {
    const ws = await json(`${API}/adm/nomen/workspaces`);
    expect(ws).toHaveLength(42);
    expect(ws.reduce((n: number, w: any) => n + w.uatCount, 0)).toBe(3186);
    const layers = await json(`${API}/map/layers`);
    expect(layers).toHaveLength(31);
    expect(new Set(layers.map((l: any) => l.category))).toEqual(new Set(['terenuri', 'cladiri', 'documentatii', 'administrativ']));
    for (const id of ['TERENURI_ACTIVE', 'CLADIRI_ACTIVE', 'LIMITE_INTRAV_DYNAMIC', 'LIMITE_UAT']) {
      expect(layers.map((l: any) => l.id)).toContain(id);
    }
  });
});

describe('layer query', () => {
  const where = `ADMIN_UNIT_ID=${SFANTU_GHEORGHE}`;

  test('pages a UAT 1000 features at a time with exceededTransferLimit until the last page', async () => {
    const ids: number[] = [];
    let offset = 0;
    for (;;) {
      const page = await json(query('TERENURI_ACTIVE', { where, outFields: '*', resultOffset: String(offset) }));
      expect(page.spatialReference.wkid).toBe(3844);
      expect(page.features.length).toBeLessThanOrEqual(1000);
      ids.push(...page.features.map((f: any) => f.attributes.OBJECTID));
      offset += page.features.length;
      if (!page.exceededTransferLimit) break;
      expect(page.features).toHaveLength(1000);
    }
    expect(ids.length).toBeGreaterThan(2000);
    expect(new Set(ids).size).toBe(ids.length);

    const idsOnly = await json(query('TERENURI_ACTIVE', { where, returnIdsOnly: 'true' }));
    const count = await json(query('TERENURI_ACTIVE', { where, returnCountOnly: 'true' }));
    const truth = await control('GET', `/truth?siruta=${SFANTU_GHEORGHE}&layerId=TERENURI_ACTIVE`);
    expect(idsOnly.objectIds).toEqual(ids);
    expect(count.count).toBe(ids.length);
    expect(truth.features.map((f: any) => f.objectId)).toEqual(ids);
  });

  test('outFields limits the attributes and returnGeometry=false drops geometry', async () => {
    const page = await json(query('TERENURI_ACTIVE', { where, outFields: 'NATIONAL_CADASTRAL_REFERENCE', resultRecordCount: '5', returnGeometry: 'false' }));
    expect(page.features).toHaveLength(5);
    for (const f of page.features) {
      expect(Object.keys(f.attributes).sort()).toEqual(['NATIONAL_CADASTRAL_REFERENCE', 'OBJECTID']);
      expect(f.geometry).toBeUndefined();
    }
  });

  test('where on OBJECTID with IN and objectIds select exactly those features', async () => {
    const { objectIds } = await json(query('TERENURI_ACTIVE', { where, returnIdsOnly: 'true' }));
    const pick = [objectIds[3], objectIds[70], objectIds[500]];
    const byWhere = await json(query('TERENURI_ACTIVE', { where: `OBJECTID IN (${pick.join(',')})`, outFields: 'OBJECTID' }));
    expect(byWhere.features.map((f: any) => f.attributes.OBJECTID)).toEqual(pick);
    const byParam = await json(query('TERENURI_ACTIVE', { objectIds: pick.join(','), outFields: 'OBJECTID' }));
    expect(byParam.features.map((f: any) => f.attributes.OBJECTID)).toEqual(pick);
    const greater = await json(query('TERENURI_ACTIVE', { where: `${where} AND OBJECTID > ${objectIds[9]}`, returnCountOnly: 'true' }));
    expect(greater.count).toBe(objectIds.length - 10);
  });

  test('where on dates filters by VALID_FROM', async () => {
    const all = await json(query('TERENURI_ACTIVE', { where, returnCountOnly: 'true' }));
    const after = await json(query('TERENURI_ACTIVE', { where: `${where} AND VALID_FROM > timestamp '2020-01-01 00:00:00'`, returnCountOnly: 'true' }));
    expect(after.count).toBeGreaterThan(0);
    expect(after.count).toBeLessThan(all.count);
  });

  test('outStatistics counts grouped by ADMIN_UNIT_ID give each UAT of a county its own count in one answer', async () => {
    const { uats } = await control('GET', '/truth');
    const covasna = uats.filter((u: any) => u.workspaceId === COVASNA).slice(0, 5);
    const outStatistics = JSON.stringify([{ statisticType: 'count', onStatisticField: 'OBJECTID', outStatisticFieldName: 'N' }]);
    await control('DELETE', '/requests');
    const stats = await json(
      query('TERENURI_ACTIVE', { where: `ADMIN_UNIT_ID IN (${covasna.map((u: any) => u.siruta).join(',')})`, outStatistics, groupByFieldsForStatistics: 'ADMIN_UNIT_ID' }),
    );
    const bySiruta = Object.fromEntries(stats.features.map((f: any) => [f.attributes.ADMIN_UNIT_ID, f.attributes.N]));
    expect(bySiruta).toEqual(Object.fromEntries(covasna.map((u: any) => [u.siruta, u.counts.TERENURI_ACTIVE])));
    // A statistics answer is neither a download nor a one-UAT query.
    const { counts } = await control('GET', '/requests');
    expect(Object.keys(counts).filter((k) => k.startsWith('query:'))).toEqual(['query:statistics:TERENURI_ACTIVE']);
    expect(counts['query:statistics:TERENURI_ACTIVE']).toBe(1);
    const bad = await json(query('TERENURI_ACTIVE', { where, outStatistics: '[{"statisticType":"median","onStatisticField":"OBJECTID"}]' }));
    expect(bad.error.code).toBe(400);
  });

  test('an unknown field answers an ESRI error body', async () => {
    const body = await json(query('TERENURI_ACTIVE', { where: 'NO_SUCH_FIELD = 1' }));
    expect(body.error.code).toBe(400);
  });

  test('parcel rings lie inside the UAT bbox in EPSG:3844 and buildings lie inside the UAT too', async () => {
    const uat = await json(query('LIMITE_UAT', { where, outFields: '*' }));
    const xs = uat.features[0].geometry.rings.flat().map((p: number[]) => p[0]);
    const ys = uat.features[0].geometry.rings.flat().map((p: number[]) => p[1]);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    // Stereo 70 easting/northing of Covasna, not degrees.
    expect(minX).toBeGreaterThan(500_000);
    expect(minY).toBeGreaterThan(400_000);
    for (const layer of ['TERENURI_ACTIVE', 'CLADIRI_ACTIVE']) {
      const page = await json(query(layer, { where, outFields: 'OBJECTID' }));
      const withGeometry = page.features.filter((f: any) => f.geometry);
      expect(withGeometry.length).toBeGreaterThan(900);
      for (const f of withGeometry) {
        for (const [x, y] of f.geometry.rings.flat()) {
          expect(x).toBeGreaterThanOrEqual(minX);
          expect(x).toBeLessThanOrEqual(maxX);
          expect(y).toBeGreaterThanOrEqual(minY);
          expect(y).toBeLessThanOrEqual(maxY);
        }
      }
    }
  });

  test('one cadastral number repeats on 200+ parcels in different UATs', async () => {
    const { count } = await json(query('TERENURI_ACTIVE', { where: "NATIONAL_CADASTRAL_REFERENCE = '1000'", returnCountOnly: 'true' }));
    expect(count).toBeGreaterThanOrEqual(200);
    const page = await json(query('TERENURI_ACTIVE', { where: "NATIONAL_CADASTRAL_REFERENCE = '1000'", outFields: 'ADMIN_UNIT_ID', returnGeometry: 'false' }));
    expect(new Set(page.features.map((f: any) => f.attributes.ADMIN_UNIT_ID)).size).toBeGreaterThanOrEqual(100);
  });
});

describe('control endpoints', () => {
  test('maintenance answers 503 HTML with "mentenanță" to every call until cleared', async () => {
    await control('POST', '/faults', { maintenance: true });
    try {
      for (const path of [`${API}/account`, query('TERENURI_ACTIVE', { where: '1=1', returnCountOnly: 'true' })]) {
        const res = await get(path);
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toMatch(/html/);
        expect(await res.text()).toContain('mentenanță');
      }
    } finally {
      await control('DELETE', '/faults');
    }
    expect((await get(`${API}/account`)).status).toBe(200);
  });

  test('request counters tell feature downloads, attribute reads, id lists and counts apart, per UAT', async () => {
    await control('DELETE', '/requests');
    const where = `ADMIN_UNIT_ID=${SFANTU_GHEORGHE}`;
    await json(query('TERENURI_ACTIVE', { where, resultRecordCount: '1' }));
    const attrs = await json(query('TERENURI_ACTIVE', { where, resultRecordCount: '2', outFields: 'OBJECTID,VALID_FROM', returnGeometry: 'false' }));
    expect(attrs.features).toHaveLength(2);
    expect(attrs.features[0].geometry).toBeUndefined();
    await json(query('TERENURI_ACTIVE', { where, returnIdsOnly: 'true' }));
    await json(query('TERENURI_ACTIVE', { where, returnIdsOnly: 'true' }));
    await json(query('CLADIRI_ACTIVE', { where: `WORKSPACE_ID=${COVASNA}`, returnCountOnly: 'true' }));
    const { counts } = await control('GET', '/requests');
    expect(counts['query:features:TERENURI_ACTIVE']).toBe(1);
    expect(counts[`query:features:TERENURI_ACTIVE:${SFANTU_GHEORGHE}`]).toBe(1);
    expect(counts['query:attributes:TERENURI_ACTIVE']).toBe(1);
    expect(counts[`query:attributes:TERENURI_ACTIVE:${SFANTU_GHEORGHE}`]).toBe(1);
    expect(counts['query:ids:TERENURI_ACTIVE']).toBe(2);
    expect(counts[`query:ids:TERENURI_ACTIVE:${SFANTU_GHEORGHE}`]).toBe(2);
    expect(counts['query:count:CLADIRI_ACTIVE']).toBe(1);
    expect(Object.keys(counts).some((k) => k.startsWith('query:count:CLADIRI_ACTIVE:'))).toBe(false);
    await control('DELETE', '/requests');
    expect((await control('GET', '/requests')).counts).toEqual({});
  });

  test('mutate adds, removes and changes parcels and truth and queries reflect it', async () => {
    const siruta = (await control('GET', '/truth')).uats.find((u: any) => u.workspaceId === COVASNA && u.siruta !== SFANTU_GHEORGHE).siruta;
    const before = await control('GET', `/truth?siruta=${siruta}&layerId=TERENURI_ACTIVE`);
    const r = await control('POST', '/mutate', { siruta, layerId: 'TERENURI_ACTIVE', add: 3, remove: 2, change: 4 });
    expect(r.added).toHaveLength(3);
    expect(r.removed).toHaveLength(2);
    expect(r.changed).toHaveLength(4);
    const after = await control('GET', `/truth?siruta=${siruta}&layerId=TERENURI_ACTIVE`);
    const ids = after.features.map((f: any) => f.objectId);
    expect(ids.length).toBe(before.features.length + 1);
    for (const id of r.added) expect(ids).toContain(id);
    for (const id of r.removed) expect(ids).not.toContain(id);
    const oldValid = new Map(before.features.map((f: any) => [f.objectId, f.validFrom]));
    for (const id of r.changed) {
      expect(after.features.find((f: any) => f.objectId === id).validFrom).toBeGreaterThan(oldValid.get(id) as number);
    }
    const remote = await json(query('TERENURI_ACTIVE', { where: `ADMIN_UNIT_ID=${siruta}`, returnIdsOnly: 'true' }));
    expect(remote.objectIds).toEqual(ids);
    const summary = (await control('GET', '/truth')).uats.find((u: any) => u.siruta === siruta);
    expect(summary.counts.TERENURI_ACTIVE).toBe(ids.length);
  });
});

describe('immovables', () => {
  test('the list pages and details carry addresses, use categories, areas, documentation and applicant', async () => {
    const list = await json(`${API}/immovable/list?workspaceId=${COVASNA}&adminUnitId=${SFANTU_GHEORGHE}&page=0&size=200`);
    expect(list.content).toHaveLength(200);
    expect(list.totalElements).toBeGreaterThan(2400); // parcels plus immovables without geometry
    const d = await json(`${API}/immovable/details?immovablePk=${list.content[10].immovablePk}`);
    expect(d.cadastralNumber).toBe(list.content[10].cadastralNumber);
    expect(d.useCategories[0].useCategory.code).toBeTruthy();
    expect(d.addresses.length).toBeGreaterThan(0);
    expect(d.documentation.length).toBeGreaterThan(0);
    expect(d.applicant.name).toBeTruthy();
  });

  test('owners use both ș/ş and ț/ţ spellings and active shares sum to one', async () => {
    const list = await json(`${API}/immovable/list?workspaceId=${COVASNA}&adminUnitId=${SFANTU_GHEORGHE}&page=1&size=150`);
    const names: string[] = [];
    const statuses = new Set<number>();
    for (const item of list.content) {
      const { nodes } = await json(`${API}/immovable/ownership?immovablePk=${item.immovablePk}`);
      const byId = new Map(nodes.map((n: any) => [n.nodeId, n]));
      let activeShare = 0;
      for (const n of nodes.filter((x: any) => x.nodeType === 'PERSON')) {
        names.push(n.person.name);
        const parent: any = byId.get(n.parentNodeId);
        expect(parent.nodeType).toBe('INSCRIPTION');
        statuses.add(parent.nodeStatus);
        if (parent.nodeStatus === 0) activeShare += n.person.shareNumerator / n.person.shareDenominator;
      }
      expect(activeShare).toBeCloseTo(1, 6);
    }
    const all = names.join(' ');
    expect(all).toMatch(/[șȘ]/);
    expect(all).toMatch(/[şŞ]/);
    expect(all).toMatch(/[țȚ]/);
    expect(all).toMatch(/[ţŢ]/);
    expect(statuses).toEqual(new Set([-1, 0, 2]));
  });

  test('search by cadastral number caps at 50 hits', async () => {
    const r = await json(`${API}/immovable/search?workspaceId=${COVASNA}&cadastralNumbers=1000`);
    expect(r.content.length).toBe(50);
    expect(r.truncated).toBe(true);
  });
});

describe('determinism and RGI', () => {
  test('the same seed gives the same bytes; another seed gives other data', async () => {
    const twin = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
    const other = await startLandregSimulator({ port: 0, seed: 7, scale: 'demo' });
    try {
      const path = query('TERENURI_ACTIVE', { where: `ADMIN_UNIT_ID=${SFANTU_GHEORGHE}`, outFields: '*', resultOffset: '1000' });
      const a = await (await get(path)).text();
      const b = await (await get(path, await login(twin.url), twin.url)).text();
      const c = await (await get(path, await login(other.url), other.url)).text();
      expect(b).toBe(a);
      expect(c).not.toBe(a);
    } finally {
      await twin.close();
      await other.close();
    }
  });

  test('an issued document downloads as a PDF after actor context and confirm-view', async () => {
    const apps = await json(`${API}/rgi/applications?workspaceId=${COVASNA}&orgUnitId=${COVASNA * 1000 + 2}&year=2024`);
    let docPk: number | null = null;
    for (const a of apps.content) {
      const docs = await json(`${API}/rgi/applications/${a.applicationId}/issued-docs?workspaceId=${COVASNA}`);
      const ready = docs.find((d: any) => d.available);
      if (ready) {
        docPk = ready.documentPk;
        break;
      }
    }
    expect(docPk).not.toBeNull();
    expect((await get(`${API}/rgi/documents/${docPk}/download`)).status).toBe(403);
    await fetch(`${sim.url}${API}/rgi/actor-context`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId: COVASNA, orgUnitId: COVASNA * 1000 + 2 }),
    });
    await fetch(`${sim.url}${API}/rgi/documents/${docPk}/confirm-view`, { method: 'POST', headers: { cookie } });
    const res = await get(`${API}/rgi/documents/${docPk}/download`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });
});
