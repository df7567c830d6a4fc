/**
 * Issue 43 (1-3): an area registers once (domain/areas.ts) and is reached through its door. Every
 * folder of domain/ outside the kernel is an area with a record; every job kind of the job table
 * and every registered workflow belongs to exactly one area; every area has its service, built by
 * `createServices`; the door rule of dependency-cruiser (.dependency-cruiser.cjs) guards every
 * folder of domain/ outside its kernel, so every area.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../domain/config';
import { AREA_NAMES, AREAS, type AreaRecord } from '../../domain/areas';
import { processServices } from '../../temporal/services';
import { createStore } from '../../domain/db/store';
import { JOBS } from '../../temporal/common/jobTable';

const read = (file: string) => fs.readFileSync(path.join(projectRoot, file), 'utf8');
const records = AREAS as Record<string, AreaRecord>;

/** A string list of the door rule's configuration, as written there. */
function listIn(config: string, name: string): string[] {
  const m = new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(config);
  if (!m) throw new Error(`${name} not found in .dependency-cruiser.cjs`);
  return [...m[1]!.matchAll(/'([^']+)'/g)].map((x) => x[1]!);
}

/** Who claims each name: name → the areas whose record lists it under `key`. */
function claims(key: 'jobs' | 'workflows'): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const area of AREA_NAMES) for (const n of records[area]![key]) by.set(n, [...(by.get(n) ?? []), area]);
  return by;
}

describe('areas: one record each, one door each', () => {
  test('every folder of domain/ outside the kernel has a record, and every record its folder', () => {
    const kernel = listIn(read('.dependency-cruiser.cjs'), 'KERNEL');
    const folders = fs
      .readdirSync(path.join(projectRoot, 'domain'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && !kernel.includes(d.name))
      .map((d) => d.name)
      .sort();
    expect(folders).toEqual([...AREA_NAMES].sort());
  });

  test('every job kind of the job table belongs to exactly one area, and every kind an area names exists', () => {
    const by = claims('jobs');
    const kinds = Object.keys(JOBS).sort();
    expect(kinds.map((k) => `${k}: ${(by.get(k) ?? []).join(',')}`).filter((line) => !/: [a-z]+$/.test(line))).toEqual([]);
    expect([...by.keys()].filter((k) => !kinds.includes(k))).toEqual([]);
  });

  test('every registered workflow belongs to exactly one area, and every workflow an area names is registered', () => {
    const registered = [...read('workflows/index.ts').matchAll(/^export \{([^}]+)\} from/gm)].flatMap((m) => m[1]!.split(',').map((s) => s.trim())).sort();
    const by = claims('workflows');
    expect(registered.map((w) => `${w}: ${(by.get(w) ?? []).join(',')}`).filter((line) => !/: [a-z]+$/.test(line))).toEqual([]);
    expect([...by.keys()].filter((w) => !registered.includes(w))).toEqual([]);
    // Each workflow of the job table is the workflow of a kind of the same area.
    const jobsBy = claims('jobs');
    const mismatched = Object.entries(JOBS).filter(([kind, spec]) => jobsBy.get(kind)?.[0] !== by.get(spec.workflow)?.[0]);
    expect(mismatched.map(([kind, spec]) => `${kind} → ${spec.workflow}`)).toEqual([]);
  });

  test('every area has its service, built once by createServices, and nothing else is built there', async () => {
    // Building reads nothing: pg and Prisma connect on first use.
    const store = createStore();
    try {
      expect(Object.keys(processServices(store, { mail: null })).sort()).toEqual([...AREA_NAMES].sort());
    } finally {
      await store.close();
    }
  });

  test('every table an area owns appears in the migrations, and the top bar holds the areas’ pages in order', () => {
    const sql = fs
      .readdirSync(path.join(projectRoot, 'prisma', 'migrations'))
      .map((f) => read(path.join('prisma', 'migrations', f)))
      .join('\n');
    const tables = AREA_NAMES.flatMap((a) => records[a]!.tables);
    expect(tables.filter((t) => !new RegExp(`CREATE TABLE (IF NOT EXISTS )?(public\\.)?"?${t}"?\\b`, 'i').test(sql))).toEqual([]);
    const positions = AREA_NAMES.flatMap((a) => (records[a]!.nav ?? []).map((n) => n.position));
    expect(new Set(positions).size).toBe(positions.length);
  });
});
