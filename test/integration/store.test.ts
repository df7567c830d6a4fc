/**
 * The store against a real PostgreSQL + PostGIS: a fresh scratch database per run, migrated by
 * the project's runner, then every Prisma model written and read back, and the PostGIS triggers,
 * keys and tile views checked with plain SQL.
 */
import { scratchDatabase } from '../helpers/scratchDb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { migrate } from '../../domain/db/migrate';
import { createPool } from '../../domain/db/pool';
import { createPrisma, type PrismaClient } from '../../domain/db/prisma';
import {
  DERIVED_OBJECTS,
  SLIM_FEATURE_COLUMNS,
  optimizeTiles,
  optimizeViews,
  setupEnrichmentViews,
  setupViews,
  uatViewsExist,
} from '../../domain/store/views';
import { TILE_SOURCES } from '../../domain/tiles/sources';
import { dbSummary, layersSummary, listFeatures, storeStats, syncStatus } from '../../domain/landreg/summary';
import { featureCounts } from '../../domain/landreg/catalogue';
import { LAYER_COUNTS_SQL } from '../../domain/store/holdings';

const scratch = scratchDatabase('geoportal_store_test');
const scratchUrl = scratch.url;

let pool: pg.Pool;
let prisma: PrismaClient;
let firstRun: { applied: string[]; derived: string[] };
let secondRun: { applied: string[]; derived: string[] };

// A 10 km square UAT with a 2 km hole, as the portal sends it (ESRI rings, EPSG:3844, the hole
// ring left unclosed on purpose).
const esriSquare = {
  rings: [
    [[500000, 400000], [500000, 410000], [510000, 410000], [510000, 400000], [500000, 400000]],
    [[502000, 402000], [504000, 402000], [504000, 404000], [502000, 404000]],
  ],
  spatialReference: { wkid: 3844 },
};
const parcelWkt = 'POLYGON((505000 405000, 505000 405100, 505100 405100, 505100 405000, 505000 405000))';
const buildingWkt = 'POLYGON((505010 405010, 505010 405030, 505030 405030, 505030 405010, 505010 405010))';

beforeAll(async () => {
  await scratch.create();
  firstRun = await migrate(scratchUrl);
  secondRun = await migrate(scratchUrl);
  pool = createPool(scratchUrl, 4);
  prisma = createPrisma(pool);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await scratch.drop();
});

describe('migrations', () => {
  it('a fresh database gets every migration file, the trigger and all tile views', () => {
    expect(firstRun.applied).toContain('001.do.core-store.sql');
    expect(firstRun.derived).toEqual(DERIVED_OBJECTS.map((o) => o.name));
  });

  it('migrating again applies nothing', () => {
    expect(secondRun).toEqual({ applied: [], derived: [] });
  });

  it('creates the postgis, pg_trgm and unaccent extensions', async () => {
    const r = await pool.query(`SELECT extname FROM pg_extension WHERE extname IN ('postgis', 'pg_trgm', 'unaccent') ORDER BY 1`);
    expect(r.rows.map((x) => x.extname)).toEqual(['pg_trgm', 'postgis', 'unaccent']);
  });
});

describe('every Prisma model reads and writes the migrated schema', () => {
  it('GisUat, GisLayer, GisSetting', async () => {
    await prisma.gisUat.create({
      data: { siruta: 900001, name: 'Ștefănești', county: 'Argeș', workspacePk: 38, geometry: esriSquare, areaValue: 96e6, lastUpdatedDtm: '2024-05-01' },
    });
    const uat = await prisma.gisUat.findUniqueOrThrow({ where: { siruta: 900001 } });
    expect(uat).toMatchObject({ name: 'Ștefănești', county: 'Argeș', workspacePk: 38, areaValue: 96e6, lastUpdatedDtm: '2024-05-01' });
    expect(uat.geometry).toEqual(esriSquare);

    await prisma.gisLayer.create({ data: { layerId: 'DOC_TEST', category: 'documentatii', name: 'Documentații test' } });
    expect(await prisma.gisLayer.findMany({ orderBy: { layerId: 'asc' } })).toEqual(
      expect.arrayContaining([expect.objectContaining({ layerId: 'DOC_TEST', category: 'documentatii' }), expect.objectContaining({ layerId: 'LIMITE_UAT' })]),
    );

    const dflt = await prisma.gisSetting.findUniqueOrThrow({ where: { key: 'sync.defaultFrequency' } });
    expect(dflt.value).toBe('daily');
    await prisma.gisSetting.update({ where: { key: 'sync.defaultFrequency' }, data: { value: 'weekly' } });
    expect((await prisma.gisSetting.findUniqueOrThrow({ where: { key: 'sync.defaultFrequency' } })).value).toBe('weekly');
  });

  it('GisSyncRun and GisFeature with its relation', async () => {
    const run = await prisma.gisSyncRun.create({
      data: { siruta: 900001, layerId: 'TERENURI_ACTIVE', mode: 'full', trigger: 'manual', remoteCount: 2, localCountBefore: 0, added: 2, workflowId: 'layer-sync:900001:x' },
    });
    expect(run).toMatchObject({ status: 'running', removed: 0, reenrichMarked: 0, error: null });
    const f = await prisma.gisFeature.create({
      data: {
        layerId: 'TERENURI_ACTIVE',
        siruta: 900001,
        objectId: 9_000_000_001n,
        cadastralRef: '50123',
        areaValue: 10000,
        attributes: { OBJECTID: 1, NATIONAL_CADASTRAL_REFERENCE: '50123' },
        enrichment: { NR_CAD: '50123', PROPRIETARI: 'POPESCU ION (1/1)' },
        enrichedAt: new Date('2024-06-01T10:00:00Z'),
        validFrom: new Date('2020-01-01T00:00:00Z'),
        syncRunId: run.id,
      },
    });
    const back = await prisma.gisFeature.findUniqueOrThrow({ where: { id: f.id }, include: { syncRun: true } });
    expect(back).toMatchObject({ objectId: 9_000_000_001n, isActive: true, reenrichMarked: false, geometrySource: null, cadastralRef: '50123' });
    expect(back.syncRun?.id).toBe(run.id);
    expect(back.enrichment).toEqual({ NR_CAD: '50123', PROPRIETARI: 'POPESCU ION (1/1)' });
    const byKey = await prisma.gisFeature.findUnique({
      where: { siruta_layerId_objectId: { siruta: 900001, layerId: 'TERENURI_ACTIVE', objectId: 9_000_000_001n } },
    });
    expect(byKey?.id).toBe(f.id);
  });

  it('GisSyncRule', async () => {
    const rule = await prisma.gisSyncRule.create({
      data: { scope: 'uat', siruta: 900001, frequency: 'weekly', priority: 2, windows: [{ days: [6, 7], start: '22:00', end: '06:00' }], steps: ['T', 'E'] },
    });
    const back = await prisma.gisSyncRule.findUniqueOrThrow({ where: { id: rule.id } });
    expect(back).toMatchObject({ scope: 'uat', siruta: 900001, county: null, frequency: 'weekly', priority: 2, steps: ['T', 'E'], enabled: true });
    expect(back.windows).toEqual([{ days: [6, 7], start: '22:00', end: '06:00' }]);
    const county = await prisma.gisSyncRule.create({ data: { scope: 'county', county: 'Argeș', frequency: 'daily' } });
    expect(county.steps).toEqual(['T', 'C', 'N', 'E']);
  });

  it('WeekendSyncQueueItem and LandregPortalSession', async () => {
    await prisma.weekendSyncQueueItem.create({ data: { siruta: 900001, name: 'Ștefănești', position: 1 } });
    const item = await prisma.weekendSyncQueueItem.findUniqueOrThrow({ where: { siruta: 900001 } });
    expect(item.steps).toEqual({ sync_terenuri: 'pending', sync_cladiri: 'pending', import_nogeom: 'pending', enrich: 'pending' });

    const session = await prisma.landregPortalSession.findUniqueOrThrow({ where: { id: 'shared' } });
    expect(session).toMatchObject({ cookiesEncrypted: null, consecutiveFailures: 0, portalMaintenance: false, portalAvailable: true });
    const connectedAt = new Date('2024-06-01T08:00:00Z');
    await prisma.landregPortalSession.update({ where: { id: 'shared' }, data: { username: 'geoportal', cookiesEncrypted: 'v1:a:b:c:d', connectedAt } });
    expect(await prisma.landregPortalSession.findUniqueOrThrow({ where: { id: 'shared' } })).toMatchObject({ username: 'geoportal', connectedAt });
  });

  it('CfExtract', async () => {
    const pdf = Buffer.from('%PDF-1.4 test');
    const expiresAt = new Date('2024-07-01T00:00:00Z');
    const a = await prisma.cfExtract.create({ data: { userId: 'u1', nrCadastral: '50123', siruta: 900001, workspacePk: 38, orderId: 'order-1', pdfData: pdf, expiresAt } });
    await prisma.cfExtract.create({ data: { userId: 'u1', nrCadastral: '50124', siruta: 900001, orderId: 'order-1', type: 'admin', adminOrderedBy: 'ana@birou.ro' } });
    const back = await prisma.cfExtract.findUniqueOrThrow({ where: { id: a.id } });
    expect(back).toMatchObject({ type: 'portal', status: 'pending', version: 1, expiresAt });
    expect(Buffer.from(back.pdfData!).toString()).toBe('%PDF-1.4 test');
    expect(await prisma.cfExtract.count({ where: { orderId: 'order-1' } })).toBe(2);
    // Pipeline columns (migration 015): the step, the portal's ids, the submit intent.
    const intent = new Date('2024-06-01T08:00:00Z');
    await prisma.cfExtract.update({ where: { id: a.id }, data: { currentStep: 'submit', stepNo: 5, portalOrderId: 'C00000001', cfNumber: '123456', submitIntentAt: intent } });
    expect(await prisma.cfExtract.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({ currentStep: 'submit', stepNo: 5, portalOrderId: 'C00000001', submitIntentAt: intent });
  });

  it('CfportalSession', async () => {
    const s = await prisma.cfportalSession.findUniqueOrThrow({ where: { id: 'shared' } });
    expect(s).toMatchObject({ credentialsEncrypted: null });
    const connectedAt = new Date('2024-06-01T08:00:00Z');
    await prisma.cfportalSession.update({ where: { id: 'shared' }, data: { username: 'geoportal-cf', credentialsEncrypted: 'v1:a:b:c:d', connectedAt } });
    expect(await prisma.cfportalSession.findUniqueOrThrow({ where: { id: 'shared' } })).toMatchObject({ username: 'geoportal-cf', connectedAt });
  });

  it('RegistryEntry and RegistryCounter', async () => {
    const e = await prisma.registryEntry.create({
      data: {
        number: 'B-2026-00001', company: 'B', year: 2026, sequence: 1, direction: 'intrare', subject: 'Cerere certificat de urbanism',
        date: new Date('2026-01-15'), attachments: [{ id: 'a1', name: 'cerere.pdf', size: 1234, mimeType: 'application/pdf' }],
        tracking: { authority: 'Primăria', status: 'inregistrat', statusClass: 'blue', history: [] },
      },
    });
    const back = await prisma.registryEntry.findUniqueOrThrow({ where: { id: e.id } });
    expect(back.date.toISOString().slice(0, 10)).toBe('2026-01-15');
    expect(back.attachments).toEqual([{ id: 'a1', name: 'cerere.pdf', size: 1234, mimeType: 'application/pdf' }]);
    expect(back.tracking).toMatchObject({ authority: 'Primăria' });

    await prisma.registryCounter.upsert({
      where: { type_company_year: { type: 'SEQ', company: 'B', year: 2026 } },
      create: { company: 'B', year: 2026, value: 1 },
      update: { value: 1 },
    });
    expect((await prisma.registryCounter.findUniqueOrThrow({ where: { type_company_year: { type: 'SEQ', company: 'B', year: 2026 } } })).value).toBe(1);
  });

  it('Notification and NotificationPreference', async () => {
    await prisma.notification.create({ data: { userId: 'u1', type: 'cf-extract-ready', title: 'Extras CF gata', body: 'Extrasul pentru 50123 este disponibil.' } });
    expect(await prisma.notification.count({ where: { userId: 'u1', readAt: null } })).toBe(1);
    await prisma.notificationPreference.create({ data: { userId: 'u1', email: 'dan@birou.ro', dailyDigest: false } });
    expect(await prisma.notificationPreference.findUniqueOrThrow({ where: { userId: 'u1' } })).toMatchObject({ dailyDigest: false, instantEmail: true, exportReady: true });
  });

  it('VaultEntry, VaultAccessLog, TagSyncState, Tag, Contact, StorageItem, AppSession', async () => {
    const v = await prisma.vaultEntry.create({ data: { name: 'Portal ANCPI', username: 'birou', password: 'v1:s:i:t:c', company: 'B' } });
    expect((await prisma.vaultEntry.findUniqueOrThrow({ where: { id: v.id } })).password).toBe('v1:s:i:t:c');
    await prisma.vaultAccessLog.create({ data: { entryId: v.id, entryName: v.name, company: 'B', userId: 'u1', userEmail: 'dan@birou.ro' } });
    expect(await prisma.vaultAccessLog.findFirstOrThrow({ where: { entryId: v.id } })).toMatchObject({ action: 'reveal', userEmail: 'dan@birou.ro' });
    await prisma.tagSyncState.create({ data: { filePath: '/tmp/tags.txt', lines: ['B-0123 Casa Popescu'] } });
    expect((await prisma.tagSyncState.findUniqueOrThrow({ where: { filePath: '/tmp/tags.txt' } })).lines).toEqual(['B-0123 Casa Popescu']);

    await prisma.tag.create({ data: { path: 'B-0123 Casa Popescu, Proiectare, DTAC', category: 'activity', project: 'B-0123 Casa Popescu', phase: 'Proiectare', activity: 'DTAC', projectCode: 'B-0123', company: 'B' } });
    expect(await prisma.tag.findUniqueOrThrow({ where: { path: 'B-0123 Casa Popescu, Proiectare, DTAC' } })).toMatchObject({ projectCode: 'B-0123' });

    const c = await prisma.contact.create({ data: { name: 'Ion Țuțea', company: 'U', email: 'ion@example.ro', phone: '0722000000' } });
    expect(await prisma.contact.findUniqueOrThrow({ where: { id: c.id } })).toMatchObject({ type: 'person', name: 'Ion Țuțea' });

    await prisma.storageItem.create({ data: { owner: 'company:B', namespace: 'ui', key: 'layout', value: { panels: ['harta'] }, sizeBytes: 20n, quotaHolder: 'company:B' } });
    expect(
      (await prisma.storageItem.findUniqueOrThrow({ where: { owner_namespace_key: { owner: 'company:B', namespace: 'ui', key: 'layout' } } })).value,
    ).toEqual({ panels: ['harta'] });

    const expiresAt = new Date(Date.now() + 3600_000);
    await prisma.appSession.create({ data: { id: 'sess-1', userId: 'u1', data: { email: 'dan@birou.ro' }, expiresAt } });
    const s = await prisma.appSession.findUniqueOrThrow({ where: { id: 'sess-1' } });
    expect(s).toMatchObject({ userId: 'u1', expiresAt });
    expect(s.createdAt).toBeInstanceOf(Date);
  });

  it('updated_at moves on every update, also for raw SQL writers', async () => {
    const before = await prisma.contact.create({ data: { name: 'Test Actualizare' } });
    const stamp = async () => (await pool.query<{ t: string }>(`SELECT updated_at::text AS t FROM contacts WHERE id = $1`, [before.id])).rows[0].t;
    const created = await stamp();
    await pool.query(`UPDATE contacts SET notes = 'x' WHERE id = $1`, [before.id]);
    // Compared in PostgreSQL's microseconds: a fast machine makes both writes in one millisecond,
    // which a JavaScript Date cannot tell apart.
    const updated = await stamp();
    expect((await pool.query<{ later: boolean }>(`SELECT $1::timestamptz > $2::timestamptz AS later`, [updated, created])).rows[0].later).toBe(true);
    const after = await prisma.contact.findUniqueOrThrow({ where: { id: before.id } });
    expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
  });
});

describe('PostGIS behaviour', () => {
  it('a UAT inserted with ESRI rings gets geom and the simplified zoom geometries', async () => {
    const r = await pool.query(
      `SELECT ST_SRID(geom) AS srid, ST_GeometryType(geom) AS type, ST_Area(geom) AS area,
              ST_SRID(geom_z0) AS z0_srid, geom_z0 IS NOT NULL AND geom_z5 IS NOT NULL AND geom_z8 IS NOT NULL AS zooms,
              ST_IsValid(geom_z0) AND ST_IsValid(geom_z5) AND ST_IsValid(geom_z8) AS valid
         FROM gis_uats WHERE siruta = 900001`,
    );
    // 10 km x 10 km minus the 2 km x 2 km hole.
    expect(r.rows[0]).toMatchObject({ srid: 3844, type: 'ST_MultiPolygon', area: 96e6, z0_srid: 3857, zooms: true, valid: true });
  });

  it('updating the rings recomputes geom and the zoom geometries', async () => {
    await pool.query(`UPDATE gis_uats SET geometry = $1 WHERE siruta = 900001`, [
      { rings: [[[500000, 400000], [500000, 420000], [520000, 420000], [520000, 400000], [500000, 400000]]] },
    ]);
    const r = await pool.query(`SELECT ST_Area(geom) AS area, ST_Area(ST_Transform(geom_z8, 3844)) AS z8 FROM gis_uats WHERE siruta = 900001`);
    expect(r.rows[0].area).toBe(4e8);
    expect(Math.abs(r.rows[0].z8 - 4e8) / 4e8).toBeLessThan(0.01);
  });

  it('a feature geometry gets its EPSG:3857 copy', async () => {
    await pool.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom, enrichment, enriched_at)
       VALUES ('TERENURI_ACTIVE', 900001, 2, '50200', ST_GeomFromText($1, 3844), $2, now())`,
      [parcelWkt, { NR_CAD: '50200', PROPRIETARI: 'IONESCU ŞTEFAN (1/1)', HAS_BUILDING: 1, BUILD_LEGAL: 1 }],
    );
    const r = await pool.query(`SELECT ST_SRID(geom_3857) AS srid, ST_Equals(ST_Transform(geom, 3857), geom_3857) AS same FROM gis_features WHERE object_id = 2`);
    expect(r.rows[0]).toEqual({ srid: 3857, same: true });
  });

  it('the feature key rejects a duplicate (layer_id, siruta, object_id)', async () => {
    const dup = pool.query(`INSERT INTO gis_features (layer_id, siruta, object_id) VALUES ('TERENURI_ACTIVE', 900001, 2)`);
    await expect(dup).rejects.toMatchObject({ code: '23505', constraint: 'gis_features_layer_uat_object_key' });
    // The same object id in another layer or UAT is a different feature.
    await pool.query(`INSERT INTO gis_features (layer_id, siruta, object_id) VALUES ('CLADIRI_ACTIVE', 900001, 2), ('TERENURI_ACTIVE', 900002, 2)`);
  });

  it('sync_run_id is provenance: deleting a sync run neither blocks nor touches its features', async () => {
    const run = await prisma.gisSyncRun.create({ data: { siruta: 900001, layerId: 'TERENURI_ACTIVE', mode: 'delta', trigger: 'schedule' } });
    await pool.query(`UPDATE gis_features SET sync_run_id = $1 WHERE siruta = 900001 AND layer_id = 'TERENURI_ACTIVE'`, [run.id]);
    await prisma.gisSyncRun.delete({ where: { id: run.id } });
    const r = await pool.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE sync_run_id = $1)::int AS stamped FROM gis_features WHERE siruta = 900001 AND layer_id = 'TERENURI_ACTIVE'`,
      [run.id],
    );
    expect(r.rows[0]).toEqual({ n: 2, stamped: 2 });
  });

  it('the unique key (siruta, layer_id, object_id) serves one-UAT lookups without a separate index', async () => {
    const r = await pool.query(
      `SELECT a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord) ON true
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE c.relname = 'gis_features_layer_uat_object_key' ORDER BY k.ord`,
    );
    expect(r.rows.map((x) => x.attname)).toEqual(['siruta', 'layer_id', 'object_id']);
  });

  it('owner search is case- and diacritic-insensitive over both cedilla and comma-below spellings', async () => {
    const r = await pool.query(`SELECT cadastral_ref FROM gis_features WHERE f_owner_text(enrichment) LIKE '%' || f_norm($1) || '%'`, ['Ștefan']);
    expect(r.rows.map((x) => x.cadastral_ref)).toEqual(['50200']);
  });
});

describe('tile views', () => {
  it('every tile source of the spec exists, with geom in EPSG:3857', async () => {
    for (const src of TILE_SOURCES) {
      const r = await pool.query(`SELECT Find_SRID(split_part($1, '.', 1), split_part($1, '.', 2), 'geom') AS srid`, [src.relation]);
      expect({ src: src.name, srid: r.rows[0].srid }).toEqual({ src: src.name, srid: 3857 });
    }
  });

  it('feature views expose exactly the slim columns', async () => {
    for (const v of ['gis_features', 'gis_terenuri', 'gis_cladiri', 'gis_administrativ', 'gis_documentatii']) {
      const r = await pool.query(`SELECT * FROM tiles.${v} LIMIT 0`);
      expect(r.fields.map((f) => f.name)).toEqual([...SLIM_FEATURE_COLUMNS]);
    }
    const ter = await pool.query(`SELECT cadastral_ref FROM tiles.gis_terenuri WHERE siruta = 900001`);
    expect(ter.rows).toEqual([{ cadastral_ref: '50200' }]);
  });

  it('UAT zoom views return the UAT with its simplified geometry', async () => {
    for (const v of ['gis_uats_z0', 'gis_uats_z5', 'gis_uats_z8', 'gis_uats_z12']) {
      const r = await pool.query(`SELECT siruta, name, ST_SRID(geom) AS srid FROM tiles.${v} WHERE siruta = 900001`);
      expect(r.rows).toEqual([{ siruta: 900001, name: 'Ștefănești', srid: 3857 }]);
    }
  });

  it('a layer of category administrativ shows in gis_administrativ', async () => {
    await pool.query(`INSERT INTO gis_features (layer_id, siruta, object_id, geom) VALUES ('LIMITE_INTRAV_DYNAMIC', 900001, 1, ST_GeomFromText($1, 3844))`, [parcelWkt]);
    const r = await pool.query(`SELECT layer_id FROM tiles.gis_administrativ WHERE siruta = 900001`);
    expect(r.rows).toEqual([{ layer_id: 'LIMITE_INTRAV_DYNAMIC' }]);
  });

  it('status views flag enrichment, and a building takes build_legal from its parent parcel', async () => {
    await pool.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom) VALUES
        ('CLADIRI_ACTIVE', 900001, 10, '50200-C1', ST_GeomFromText($1, 3844)),
        ('CLADIRI_ACTIVE', 900001, 11, NULL, ST_GeomFromText($1, 3844)),
        ('CLADIRI_ACTIVE', 900001, 12, '99999-C1', ST_Translate(ST_GeomFromText($1, 3844), 2000, 0))`,
      [buildingWkt],
    );
    const ter = await pool.query(`SELECT cadastral_ref, has_enrichment, has_building, build_legal FROM tiles.gis_terenuri_status WHERE siruta = 900001`);
    expect(ter.rows).toEqual([{ cadastral_ref: '50200', has_enrichment: 1, has_building: 1, build_legal: 1 }]);
    const cl = await pool.query(`SELECT object_id::int, has_enrichment, build_legal FROM tiles.gis_cladiri_status WHERE siruta = 900001 ORDER BY object_id`);
    expect(cl.rows).toEqual([
      { object_id: 10, has_enrichment: 0, build_legal: 1 }, // by cadastral number
      { object_id: 11, has_enrichment: 0, build_legal: 1 }, // by location
      { object_id: 12, has_enrichment: 0, build_legal: null }, // no parent parcel: unknown
    ]);
  });

  it('the setup and optimize routes are idempotent and report what exists', async () => {
    expect((await uatViewsExist(pool)).exists).toBe(true);
    expect(await setupViews(pool)).toEqual({ created: [], existing: ['tiles.gis_uats_z0', 'tiles.gis_uats_z5', 'tiles.gis_uats_z8', 'tiles.gis_uats_z12'] });

    await pool.query(`DROP VIEW tiles.gis_uats_z5`);
    expect((await uatViewsExist(pool)).exists).toBe(false);
    expect((await setupViews(pool)).created).toEqual(['tiles.gis_uats_z5']);

    // An old row without zoom geometries is backfilled once.
    await pool.query(`ALTER TABLE gis_uats DISABLE TRIGGER gis_uats_derive_geom`);
    await pool.query(`UPDATE gis_uats SET geom_z5 = NULL WHERE siruta = 900001`);
    await pool.query(`ALTER TABLE gis_uats ENABLE TRIGGER gis_uats_derive_geom`);
    const opt = await optimizeViews(pool);
    expect(opt).toMatchObject({ columnsAdded: [], indexesCreated: [], backfilled: 1, trigger: 'public.f_gis_uats_derive_geom' });
    expect((await optimizeViews(pool)).backfilled).toBe(0);

    expect((await optimizeTiles(pool)).recreated).toHaveLength(7);
    expect((await setupEnrichmentViews(pool)).recreated).toEqual(['tiles.gis_terenuri_status', 'tiles.gis_cladiri_status']);
    // Recreated objects carry the same checksums, so the runner still has nothing to do.
    expect(await migrate(scratchUrl)).toEqual({ applied: [], derived: [] });
  });

  it('filling the z14 and z16 tile geometries anew (a changed rule) keeps every feature\'s sync stamp, and later writes still touch it', async () => {
    const stamps = () =>
      pool.query(`SELECT id, updated_at, geom_z14 IS NOT NULL AND geom_z16 IS NOT NULL AS filled FROM gis_features WHERE geom_3857 IS NOT NULL ORDER BY id`);
    await pool.query(`UPDATE gis_features SET geom_z14 = NULL, geom_z16 = NULL WHERE siruta = 900001`);
    const before = (await stamps()).rows;
    expect(before.length).toBeGreaterThan(2);
    // Without its checksum the rule is applied again by the next start, filling every feature.
    await pool.query(`COMMENT ON FUNCTION public.f_gis_features_tile_grid() IS NULL`);
    expect(await migrate(scratchUrl)).toEqual({ applied: [], derived: ['public.f_gis_features_tile_grid'] });
    const after = (await stamps()).rows;
    expect(after.map((r) => ({ id: r.id, updated_at: r.updated_at }))).toEqual(before.map((r) => ({ id: r.id, updated_at: r.updated_at })));
    expect(after.every((r) => r.filled)).toBe(true);

    const one = after[0];
    await pool.query(`UPDATE gis_features SET cadastral_ref = 'atins' WHERE id = $1`, [one.id]);
    const touched = await pool.query(`SELECT updated_at FROM gis_features WHERE id = $1`, [one.id]);
    expect(touched.rows[0].updated_at.getTime()).toBeGreaterThan(one.updated_at.getTime());
  });

  it('a building keeps its parent parcel\'s keys through its own writes, and filling them anew keeps every sync stamp', async () => {
    // An enriched parcel 4 km east of the fixture's (BUILD_LEGAL 0); the building starts 2 km east, on nothing.
    const legal = async () =>
      (await pool.query(`SELECT build_legal FROM tiles.gis_cladiri_status WHERE siruta = 900001 AND object_id = 20`)).rows[0].build_legal;
    await pool.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom, enrichment, enriched_at)
       VALUES ('TERENURI_ACTIVE', 900001, 30, '88888', ST_Translate(ST_GeomFromText($1, 3844), 4000, 0), '{"BUILD_LEGAL": "0"}', now())`,
      [parcelWkt],
    );
    await pool.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
       VALUES ('CLADIRI_ACTIVE', 900001, 20, '77777-C1', ST_Translate(ST_GeomFromText($1, 3844), 2000, 0))`,
      [buildingWkt],
    );
    expect(await legal()).toBeNull();
    await pool.query(`UPDATE gis_features SET cadastral_ref = '88888-C4' WHERE siruta = 900001 AND object_id = 20`);
    expect(await legal()).toBe(0); // renumbered under the parcel
    await pool.query(`UPDATE gis_features SET cadastral_ref = '77777-C1' WHERE siruta = 900001 AND object_id = 20`);
    expect(await legal()).toBeNull();
    await pool.query(`UPDATE gis_features SET geom = ST_Translate(ST_GeomFromText($1, 3844), 4000, 0) WHERE siruta = 900001 AND object_id = 20`, [
      buildingWkt,
    ]);
    expect(await legal()).toBe(0); // moved onto the parcel

    const keys = () =>
      pool.query(
        `SELECT id, updated_at, layer_id, parent_ref, ST_AsText(interior_point) AS point,
                regexp_replace(cadastral_ref, '-C[0-9]+$', '') AS want_ref, ST_AsText(ST_PointOnSurface(geom)) AS want_point
           FROM gis_features ORDER BY id`,
      );
    await pool.query(`ALTER TABLE gis_features DISABLE TRIGGER gis_features_touch`);
    await pool.query(`UPDATE gis_features SET parent_ref = NULL, interior_point = NULL`);
    await pool.query(`ALTER TABLE gis_features ENABLE TRIGGER gis_features_touch`);
    const before = (await keys()).rows;
    await pool.query(`COMMENT ON FUNCTION public.f_gis_features_building_parent() IS NULL`);
    expect(await migrate(scratchUrl)).toEqual({ applied: [], derived: ['public.f_gis_features_building_parent'] });
    const after = (await keys()).rows;
    expect(after.map((r) => [r.id, r.updated_at])).toEqual(before.map((r) => [r.id, r.updated_at]));
    const buildings = after.filter((r) => r.layer_id === 'CLADIRI_ACTIVE');
    expect(buildings.length).toBeGreaterThan(3);
    for (const b of buildings) expect({ ref: b.parent_ref, point: b.point }).toEqual({ ref: b.want_ref, point: b.want_point });
    // Other layers hold none: only buildings look for a parent.
    expect(after.filter((r) => r.layer_id !== 'CLADIRI_ACTIVE' && (r.parent_ref !== null || r.point !== null))).toEqual([]);
  });

  it("filling the OGC properties anew (a changed rule) keeps every feature's sync stamp and writes what the trigger writes", async () => {
    const cols = `ogc_properties_full AS full_text, ogc_properties_restricted AS restricted`;
    await pool.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, enrichment) VALUES
        ('TERENURI_ACTIVE', 900001, 70, '50270', '{"NR_CAD": "50270", "PROPRIETARI": "Ștefan Popescu (1/1)", "CATEGORIE": "A:100", "SIRUTA": 900001}'),
        ('TERENURI_ACTIVE', 900001, 71, '50271', NULL)`,
    );
    const byTrigger = (await pool.query(`SELECT id, updated_at, ${cols} FROM gis_features WHERE siruta = 900001 AND object_id IN (70, 71) ORDER BY object_id`)).rows;
    // The members text of each class: the restricted one has no personal key; no enrichment is every key null.
    expect(JSON.parse(`{${byTrigger[0].full_text}}`)).toMatchObject({ NR_CAD: '50270', PROPRIETARI: 'Ștefan Popescu (1/1)', CATEGORIE: 'A:100', NR_CF: null });
    expect(JSON.parse(`{${byTrigger[0].restricted}}`)).toMatchObject({ NR_CAD: '50270', CATEGORIE: 'A:100' });
    expect(byTrigger[0].restricted).not.toContain('"PROPRIETARI"');
    expect(byTrigger[0].restricted).not.toContain('Popescu');
    expect(byTrigger[0].full_text).not.toContain('"SIRUTA"');
    // Not enriched yet: nothing stored, so the sync's inserts pay nothing (the page reads all-null keys).
    expect([byTrigger[1].full_text, byTrigger[1].restricted]).toEqual([null, null]);
    // Other layers carry none.
    expect((await pool.query(`SELECT ${cols} FROM gis_features WHERE siruta = 900001 AND layer_id = 'CLADIRI_ACTIVE' LIMIT 1`)).rows[0]).toEqual({
      full_text: null,
      restricted: null,
    });

    const stamps = () => pool.query(`SELECT id, updated_at, ${cols} FROM gis_features WHERE siruta = 900001 ORDER BY id`);
    const before = (await stamps()).rows;
    await pool.query(`ALTER TABLE gis_features DISABLE TRIGGER gis_features_touch`);
    await pool.query(`UPDATE gis_features SET ogc_properties_full = NULL, ogc_properties_restricted = NULL WHERE siruta = 900001`);
    await pool.query(`ALTER TABLE gis_features ENABLE TRIGGER gis_features_touch`);
    // Without its checksum the rule is applied again by the next start, filling every feature.
    await pool.query(`COMMENT ON FUNCTION public.f_gis_features_ogc_properties() IS NULL`);
    expect(await migrate(scratchUrl)).toEqual({ applied: [], derived: ['public.f_gis_features_ogc_properties'] });
    expect((await stamps()).rows).toEqual(before);

    // An enrichment write refreshes both texts.
    await pool.query(`UPDATE gis_features SET enrichment = '{"PROPRIETARI": "Ioana Şerban (1/1)", "CATEGORIE": "V:100"}' WHERE id = $1`, [byTrigger[1].id]);
    const written = (await pool.query(`SELECT ${cols} FROM gis_features WHERE id = $1`, [byTrigger[1].id])).rows[0];
    expect(JSON.parse(`{${written.full_text}}`)).toMatchObject({ PROPRIETARI: 'Ioana Şerban (1/1)', CATEGORIE: 'V:100' });
    expect(JSON.parse(`{${written.restricted}}`)).toMatchObject({ CATEGORIE: 'V:100' });
    expect(written.restricted).not.toContain('Şerban');
  });

  it('the store summaries count what every write left, without counting the store: inserts, updates, layer moves, deletes, a refill, a truncate', async () => {
    const recount = () =>
      pool.query(
        `SELECT siruta, layer_id, count(*)::int AS total, count(*) FILTER (WHERE geom IS NOT NULL)::int AS with_geometry,
                count(*) FILTER (WHERE geometry_source = 'NO_GEOMETRY')::int AS no_geometry, count(*) FILTER (WHERE enrichment IS NOT NULL)::int AS enriched,
                count(*) FILTER (WHERE reenrich_marked)::int AS reenrich_marked
           FROM gis_features GROUP BY siruta, layer_id ORDER BY siruta, layer_id`,
      );
    const kept = () =>
      pool.query(
        `SELECT siruta, layer_id, total::int, with_geometry::int, no_geometry::int, enriched::int, reenrich_marked::int
           FROM ${LAYER_COUNTS_SQL} c ORDER BY siruta, layer_id`,
      );
    const uat = async (siruta: number) => (await dbSummary(pool)).uats.find((u) => u.siruta === siruta)?.layers;

    // One statement, two layers: three parcels with geometry, one imported without, two buildings.
    await pool.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom, geometry_source)
       SELECT l, 900077, n, n::text, CASE WHEN n = 4 THEN NULL ELSE ST_Translate(ST_GeomFromText($1, 3844), n * 200, 0) END,
              CASE WHEN n = 4 THEN 'NO_GEOMETRY' END
         FROM (VALUES ('TERENURI_ACTIVE', 1), ('TERENURI_ACTIVE', 2), ('TERENURI_ACTIVE', 3), ('TERENURI_ACTIVE', 4), ('CLADIRI_ACTIVE', 5), ('CLADIRI_ACTIVE', 6)) v(l, n)`,
      [parcelWkt],
    );
    expect(await uat(900077)).toEqual({
      TERENURI_ACTIVE: { total: 4, withGeometry: 3, noGeometry: 1, enriched: 0, reenrichMarked: 0 },
      CLADIRI_ACTIVE: { total: 2, withGeometry: 2, noGeometry: 0, enriched: 0, reenrichMarked: 0 },
    });
    // Enrichment of two parcels, one marked for re-enrichment, one parcel losing its geometry, a building moved to another layer.
    await pool.query(`UPDATE gis_features SET enrichment = '{"NR_CF": "1"}', enriched_at = now() WHERE siruta = 900077 AND object_id IN (1, 2)`);
    await pool.query(`UPDATE gis_features SET reenrich_marked = true WHERE siruta = 900077 AND object_id = 2`);
    await pool.query(`UPDATE gis_features SET geom = NULL WHERE siruta = 900077 AND object_id = 3`);
    await pool.query(`UPDATE gis_features SET layer_id = 'LIMITE_UAT' WHERE siruta = 900077 AND object_id = 6`);
    expect(await uat(900077)).toEqual({
      TERENURI_ACTIVE: { total: 4, withGeometry: 2, noGeometry: 1, enriched: 2, reenrichMarked: 1 },
      CLADIRI_ACTIVE: { total: 1, withGeometry: 1, noGeometry: 0, enriched: 0, reenrichMarked: 0 },
      LIMITE_UAT: { total: 1, withGeometry: 1, noGeometry: 0, enriched: 0, reenrichMarked: 0 },
    });
    // Deleting the moved feature: its layer drops out of the UAT's summary and the layers' summary.
    await pool.query(`DELETE FROM gis_features WHERE siruta = 900077 AND layer_id = 'LIMITE_UAT'`);
    expect(Object.keys((await uat(900077))!)).toEqual(['CLADIRI_ACTIVE', 'TERENURI_ACTIVE']);
    expect((await kept()).rows).toEqual((await recount()).rows);

    const truth = (await recount()).rows;
    const sum = (pick: (r: (typeof truth)[number]) => boolean, col: 'total' | 'enriched' = 'total') => truth.filter(pick).reduce((a, r) => a + r[col], 0);
    expect(await storeStats(pool)).toMatchObject({
      uatsWithFeatures: new Set(truth.map((r) => r.siruta)).size,
      parcels: sum((r) => r.layer_id === 'TERENURI_ACTIVE'),
      buildings: sum((r) => r.layer_id === 'CLADIRI_ACTIVE'),
      features: sum(() => true),
      enrichedParcels: sum((r) => r.layer_id === 'TERENURI_ACTIVE', 'enriched'),
    });
    const layers = (await layersSummary(pool)).layers;
    expect(layers.find((l) => l.layerId === 'TERENURI_ACTIVE')).toMatchObject({ features: sum((r) => r.layer_id === 'TERENURI_ACTIVE'), uats: truth.filter((r) => r.layer_id === 'TERENURI_ACTIVE').length });
    expect(layers.find((l) => l.layerId === 'LIMITE_UAT')).toMatchObject({ features: sum((r) => r.layer_id === 'LIMITE_UAT') });
    expect((await featureCounts(pool)).get(900077)).toBe(5);
    expect((await listFeatures(pool, { siruta: 900077, limit: 1, offset: 0 })).total).toBe(5);
    expect((await listFeatures(pool, { siruta: 900077, layerId: 'CLADIRI_ACTIVE', limit: 1, offset: 0 })).total).toBe(1);
    expect((await listFeatures(pool, { limit: 1, offset: 0 })).total).toBe(sum(() => true));
    const run = await pool.query(`INSERT INTO gis_sync_runs (siruta, layer_id, mode, trigger, status) VALUES (900077, 'TERENURI_ACTIVE', 'full', 'manual', 'done') RETURNING id`);
    expect((await syncStatus(pool, 900077)).items).toEqual([expect.objectContaining({ layerId: 'TERENURI_ACTIVE', featureCount: 4 })]);
    await pool.query(`DELETE FROM gis_sync_runs WHERE id = $1`, [run.rows[0].id]);

    // Two writers of the same UAT and layer never wait for each other on the counts: a page of a
    // sync left open while an enrichment writes a parcel of the same layer (each would otherwise
    // hold what the other wants next: a deadlock).
    const page = await pool.connect();
    try {
      await page.query('BEGIN');
      await page.query(`INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref) VALUES ('TERENURI_ACTIVE', 900077, 7, '7')`);
      const enrich = await pool.connect();
      try {
        await enrich.query(`SET lock_timeout = '2s'`);
        await enrich.query(`UPDATE gis_features SET enrichment = '{"NR_CF": "3"}' WHERE siruta = 900077 AND object_id = 3`);
        await enrich.query(`RESET lock_timeout`);
      } finally {
        enrich.release();
      }
      await page.query(`UPDATE gis_features SET reenrich_marked = true WHERE siruta = 900077 AND object_id = 3`);
      await page.query('COMMIT');
    } finally {
      page.release();
    }
    expect((await uat(900077))!.TERENURI_ACTIVE).toEqual({ total: 5, withGeometry: 2, noGeometry: 1, enriched: 3, reenrichMarked: 2 });
    // However many statements wrote a key, it stays a handful of rows.
    const rows = await pool.query(`SELECT count(*)::int AS n FROM gis_layer_counts WHERE siruta = 900077 AND layer_id = 'TERENURI_ACTIVE'`);
    expect(rows.rows[0].n).toBeLessThanOrEqual(2);
    await pool.query(`DELETE FROM gis_features WHERE siruta = 900077 AND object_id = 7`);
    await pool.query(`UPDATE gis_features SET enrichment = NULL, reenrich_marked = false WHERE siruta = 900077 AND object_id = 3`);
    expect((await kept()).rows).toEqual(truth);

    // Counts gone wrong (a hand edit) are refilled from the features when the rule is applied again.
    await pool.query(`UPDATE gis_layer_counts SET total = total + 100`);
    await pool.query(`COMMENT ON FUNCTION public.f_gis_features_layer_counts() IS NULL`);
    expect(await migrate(scratchUrl)).toEqual({ applied: [], derived: ['public.f_gis_features_layer_counts'] });
    expect((await kept()).rows).toEqual(truth);

    // The last test of the file: a truncate empties every count.
    await pool.query(`TRUNCATE gis_features CASCADE`);
    expect(await storeStats(pool)).toMatchObject({ uatsWithFeatures: 0, parcels: 0, buildings: 0, features: 0, enrichedParcels: 0 });
    expect((await dbSummary(pool)).uats).toEqual([]);
  });
});
