/**
 * The weekend queue's default cities (issue 30 item 3, spec 8 "default weekend cities"): no
 * migration puts cities in the queue; the seed step adds the configured ones the catalogue knows,
 * once per installation. On a database of its own: the queue and its seed flag are global.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { migrate } from '../../domain/db/migrate';
import { seedWeekendQueue } from '../../domain/scheduling/weekend';
import { config } from '../../domain/config';
import { scratchDatabase } from '../helpers/scratchDb';

const scratch = scratchDatabase('geoportal_weekend_seed_test');
let db: pg.Pool;

const queue = async () => (await db.query<{ siruta: number; name: string; position: number }>(`SELECT siruta, name, position FROM weekend_sync_queue ORDER BY position`)).rows;

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  db = new pg.Pool({ connectionString: scratch.url, max: 2 });
}, 120_000);

afterAll(async () => {
  await db?.end();
  await scratch.drop();
});

describe('weekend queue seed', () => {
  test('the migrations leave the queue empty; the configured default is the spec\'s nine cities', async () => {
    expect(await queue()).toEqual([]);
    expect(config.scheduling.weekendDefaultCities).toHaveLength(9);
  });

  test('nothing before the catalogue knows the cities; then the known ones, in the configured order, once', async () => {
    const [brăila, sfGheorghe, buftea] = config.scheduling.weekendDefaultCities;
    expect(await seedWeekendQueue(db, config.scheduling.weekendDefaultCities)).toEqual({ added: 0 });
    // The catalogue arrives (two of the cities, in the opposite order).
    await db.query(`INSERT INTO gis_uats (siruta, name, county) VALUES ($1, 'Sfântu Gheorghe', 'Covasna'), ($2, 'Brăila', 'Brăila')`, [sfGheorghe, brăila]);
    expect(await seedWeekendQueue(db, config.scheduling.weekendDefaultCities)).toEqual({ added: 2 });
    expect(await queue()).toEqual([
      { siruta: brăila, name: 'Brăila', position: 1 },
      { siruta: sfGheorghe, name: 'Sfântu Gheorghe', position: 2 },
    ]);
    // An administrator removes a city; a later seed (another start, more of the catalogue) brings nothing back.
    await db.query(`DELETE FROM weekend_sync_queue WHERE siruta = $1`, [brăila]);
    await db.query(`INSERT INTO gis_uats (siruta, name, county) VALUES ($1, 'Buftea', 'Ilfov')`, [buftea]);
    expect(await seedWeekendQueue(db, config.scheduling.weekendDefaultCities)).toEqual({ added: 0 });
    expect((await queue()).map((r) => r.siruta)).toEqual([sfGheorghe]);
  });
});
