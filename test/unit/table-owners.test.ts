/**
 * Issue 28 (1): every table has one owning area (domain/db/owners.ts) and only the owner's files
 * name it in SQL or reach it through Prisma; the others call the owner's functions. Scanned: the
 * product's TypeScript (domain/, api/, activities/, workflows/, temporal/, workers/, web/app/,
 * scripts/). Not scanned, like the tests: the benchmarks (scripts/bench/) and the demo seed
 * (scripts/seed-demo.ts), which lay out and measure fixtures in the store as a test does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../domain/config';
import { projectFiles } from '../helpers/projectFiles';
import { AREA_FILES, SHARED_TABLES, TABLE_OWNERS, inFiles, mayAccess, type Table } from '../../domain/db/owners';
import { tableAccesses, tablesInSql } from '../helpers/tableAccess';

const SCANNED = ['domain', 'api', 'activities', 'workflows', 'temporal', 'workers', 'web/app', 'scripts'];
const NOT_SCANNED = ['scripts/bench/', 'scripts/seed-demo.ts'];

const read = (file: string) => fs.readFileSync(path.join(projectRoot, file), 'utf8');

function sourceFiles(): string[] {
  return projectFiles(...SCANNED).filter((f) => /\.tsx?$/.test(f) && !inFiles(f, NOT_SCANNED));
}

/** Prisma delegate name → table, from the `@@map` of each model. */
function prismaModels(): Map<string, string> {
  const models = new Map<string, string>();
  for (const [, model, body] of read('prisma/schema.prisma').matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const table = /@@map\("(\w+)"\)/.exec(body)?.[1];
    if (table) models.set(model[0].toLowerCase() + model.slice(1), table);
  }
  return models;
}

/** The tables the migrations leave, in file order (a table dropped or renamed later is gone). */
function migratedTables(): Set<string> {
  const dir = path.join(projectRoot, 'prisma/migrations');
  const tables = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
    const sql = fs.readFileSync(path.join(dir, file), 'utf8').replace(/--.*$/gm, '');
    const statements = /\b(CREATE|DROP|ALTER)\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:public\.)?(\w+)(?:\s+RENAME\s+TO\s+(\w+))?/gi;
    for (const [, verb, table, renamed] of sql.matchAll(statements)) {
      if (verb.toUpperCase() === 'CREATE') tables.add(table);
      else if (verb.toUpperCase() === 'DROP') tables.delete(table);
      else if (renamed) {
        tables.delete(table);
        tables.add(renamed);
      }
    }
  }
  return tables;
}

const TABLES: ReadonlySet<string> = new Set(Object.keys(TABLE_OWNERS));

/** Each access of a table by a file that may not name it, as `file:line table (how)`. */
function offenders(file: string, text: string, models = prismaModels()): string[] {
  return tableAccesses(file, text, TABLES, models)
    .filter((a) => !mayAccess(file, a.table as Table))
    .map((a) => `${file}:${a.line} ${a.table} (${a.how}; owner ${TABLE_OWNERS[a.table as Table]})`);
}

describe('table owners', () => {
  test('every table of the migrations and of the Prisma schema has exactly one owner, and the map names no other', () => {
    const schema = new Set([...migratedTables(), ...prismaModels().values()]);
    expect([...TABLES].sort()).toEqual([...schema].sort());
  });

  test('every area file and shared statement of the map exists, and each shared file still names one of its tables', () => {
    const missing = [...Object.values(AREA_FILES).flat(), ...SHARED_TABLES.flatMap((s) => s.files)].filter((f) => !fs.existsSync(path.join(projectRoot, f)));
    expect(missing).toEqual([]);
    const models = prismaModels();
    const files = sourceFiles();
    for (const shared of SHARED_TABLES) {
      const used = files
        .filter((f) => inFiles(f, shared.files))
        .flatMap((f) => tableAccesses(f, read(f), TABLES, models))
        .filter((a) => shared.tables.includes(a.table as Table));
      expect({ why: shared.why, used: used.length > 0 }).toEqual({ why: shared.why, used: true });
    }
  });

  test("no file outside a table's owner reads or writes it", () => {
    const models = prismaModels();
    expect(sourceFiles().flatMap((f) => offenders(f, read(f), models))).toEqual([]);
  });

  test('the check catches a planted access: SQL after each keyword, comma lists, Prisma delegates; not comments, longer names or interpolations', () => {
    const planted = `
      // SELECT * FROM registry_entries (a comment names nothing)
      export async function due(db: Db, prisma: PrismaClient, tx: Tx, t: string) {
        await db.query(\`SELECT r.id FROM registry_entries r JOIN gis_uats u ON u.siruta = r.siruta\`);
        await db.query('DELETE FROM cf_extracts WHERE id = $1', [1]);
        await db.query(\`UPDATE public.weekend_sync_queue SET position = 1\`);
        await db.query(\`INSERT INTO outside_call_pace (service) VALUES ($1)\`);
        await db.query(\`COPY gis_features (id) FROM STDIN\`);
        await db.query(\`SELECT 1 FROM tags t, contacts c WHERE \${t} = 'x'\`);
        await db.query(\`SELECT 1 FROM registry_entries_archive, \${t}\`);
        await db.query(\`SELECT 1 FROM \${'gis_features'}\`);
        await tx.registryEntry.findMany({ where: {} });
        return prisma.appSession.count();
      }`;
    expect(offenders('domain/notifications/digest.ts', planted)).toEqual([
      'domain/notifications/digest.ts:4 registry_entries (sql; owner registry)',
      'domain/notifications/digest.ts:4 gis_uats (sql; owner landreg)',
      'domain/notifications/digest.ts:5 cf_extracts (sql; owner cfportal)',
      'domain/notifications/digest.ts:6 weekend_sync_queue (sql; owner scheduling)',
      'domain/notifications/digest.ts:7 outside_call_pace (sql; owner outside)',
      'domain/notifications/digest.ts:8 gis_features (sql; owner landreg)',
      'domain/notifications/digest.ts:9 tags (sql; owner tags)',
      'domain/notifications/digest.ts:9 contacts (sql; owner office)',
      'domain/notifications/digest.ts:12 registry_entries (prisma; owner registry)',
      'domain/notifications/digest.ts:13 app_sessions (prisma; owner auth)',
    ]);
    // The same text in the owner's file, or a shared statement's, is no offence.
    expect(offenders('domain/registry/due.ts', `db.query('SELECT id FROM registry_entries')`)).toEqual([]);
    expect(offenders('domain/enrichment/store.ts', `db.query('SELECT 1 FROM watchlist w')`)).toEqual([]);
    expect(tablesInSql('SELECT 1 FROM watchlist_archive JOIN feature_changes_old x ON true', TABLES)).toEqual([]);
  });
});
