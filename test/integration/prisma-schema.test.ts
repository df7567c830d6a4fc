/**
 * schema.prisma is kept in step with the SQL migrations (the source of the schema): every model's
 * table and columns exist in the migrated database exactly as mapped, and every table the
 * migrations create is either modelled or listed below as pg-only on purpose.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';

/** Tables worked on with pg only (PostGIS, COPY, kept by triggers, bookkeeping of the tools), not through Prisma. */
const PG_ONLY_TABLES = new Set(['schemaversion', 'spatial_ref_sys', 'tile_versions', 'tile_archive_builds', 'gis_layer_counts', 'work_slot_leases', 'rate_limit_hits', 'portal_job_starts']);

interface ModelShape {
  model: string;
  table: string;
  columns: string[];
}

/** The models of schema.prisma with their table and column names (relation fields left out). */
function prismaModels(): ModelShape[] {
  const text = readFileSync(path.join(projectRoot, 'prisma', 'schema.prisma'), 'utf8');
  const blocks = [...text.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)];
  const names = new Set(blocks.map((b) => b[1]));
  return blocks.map(([, model, body]) => {
    let table = model;
    const columns: string[] = [];
    for (const raw of body.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('//')) continue;
      const map = /^@@map\("([^"]+)"\)/.exec(line);
      if (map) table = map[1];
      if (line.startsWith('@@')) continue;
      const field = /^(\w+)\s+([\w]+)/.exec(line);
      if (!field) continue;
      if (names.has(field[2])) continue; // a relation, no column of its own
      columns.push(/@map\("([^"]+)"\)/.exec(line)?.[1] ?? field[1]);
    }
    return { model, table, columns: columns.sort() };
  });
}

afterAll(async () => {
  await closePool();
});

describe('schema.prisma and the migrations', () => {
  test('every model maps to a migrated table with exactly its columns', async () => {
    const r = await getPool().query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const db = new Map<string, string[]>();
    for (const row of r.rows) db.set(row.table_name, [...(db.get(row.table_name) ?? []), row.column_name]);
    const models = prismaModels();
    expect(models.length).toBeGreaterThan(10);
    for (const m of models) {
      expect({ model: m.model, table: m.table, columns: (db.get(m.table) ?? []).sort() }).toEqual({ model: m.model, table: m.table, columns: m.columns });
    }
    const modelled = new Set(models.map((m) => m.table));
    const views = await getPool().query<{ table_name: string }>(`SELECT table_name FROM information_schema.views WHERE table_schema = 'public'`);
    const viewNames = new Set(views.rows.map((v) => v.table_name));
    const unmodelled = [...db.keys()].filter((t) => !modelled.has(t) && !PG_ONLY_TABLES.has(t) && !viewNames.has(t)).sort();
    expect(unmodelled).toEqual([]);
  });
});
