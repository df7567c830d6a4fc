/**
 * A write that lost a race with a colleague's reaches the caller as a 409 or a 404, never a 500
 * (api/http/errorMapper.ts `toAppError`): the errors PostgreSQL and Prisma really raise for a
 * unique key taken meanwhile, a row deleted meanwhile and a referenced row gone.
 */
import { afterAll, expect, test } from '@jest/globals';
import { toAppError } from '../../api/http/errorMapper';
import { closePool, getPool } from '../../domain/db/pool';
import { disconnectPrisma, getPrisma } from '../../domain/db/prisma';

afterAll(async () => {
  await disconnectPrisma();
  await closePool();
});

async function raised(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('no error was raised');
}

test('a unique key taken meanwhile is 409 already_exists, through pg and through Prisma', async () => {
  const client = await getPool().connect();
  try {
    await client.query('CREATE TEMP TABLE race_names (name text UNIQUE)');
    await client.query(`INSERT INTO race_names VALUES ('B-0123')`);
    const err = toAppError(await raised(() => client.query(`INSERT INTO race_names VALUES ('B-0123')`)));
    expect({ status: err.status, code: err.code }).toEqual({ status: 409, code: 'already_exists' });
  } finally {
    client.release();
  }
  const path = `Cursa ${Date.now()}`;
  const prisma = getPrisma();
  await prisma.tag.create({ data: { path, category: 'project', project: path } });
  try {
    const err = toAppError(await raised(() => prisma.tag.create({ data: { path, category: 'project', project: path } })));
    expect({ status: err.status, code: err.code }).toEqual({ status: 409, code: 'already_exists' });
    expect(err.message).toMatch(/altcineva/);
  } finally {
    await prisma.tag.deleteMany({ where: { path } });
  }
});

test('an update of a row deleted meanwhile is 404; a row whose referenced row is gone is 409', async () => {
  const prisma = getPrisma();
  const gone = toAppError(await raised(() => prisma.tag.update({ where: { id: '00000000-0000-4000-8000-000000000000' }, data: { phase: 'X' } })));
  expect({ status: gone.status, code: gone.code }).toEqual({ status: 404, code: 'not_found' });
  const orphan = toAppError(
    await raised(() => getPool().query(`INSERT INTO vault_access_log (entry_id, entry_name, user_id, user_email) VALUES ('00000000-0000-4000-8000-000000000000', 'x', 'u', 'u@birou.ro')`)),
  );
  expect({ status: orphan.status, code: orphan.code }).toEqual({ status: 409, code: 'modified_concurrently' });
  // Anything else stays a 500.
  expect(toAppError(await raised(() => getPool().query('SELECT 1/0'))).status).toBe(500);
});
