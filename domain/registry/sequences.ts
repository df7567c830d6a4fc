/**
 * `GET|POST /api/registratura/debug-sequences` (spec 4.5): the SEQ counters against the actual
 * maxima of the entries, with samples of each number format; POST resets every counter to its
 * actual maximum and converts old-format entries (`BTG-2024-IN-00042`, `42/2023`) to the current
 * format with the same sequence, unless that number is already taken (then it is reported).
 */
import type { PrismaClient } from '../db/prisma';
import { addHistory } from './entries';
import { formatRegistryNumber, parseRegistryNumber, type NumberFormat, type RegistryCompany } from './numbers';

export interface SequenceReport {
  company: string;
  year: number;
  counter: number | null;
  actualMax: number;
  entries: number;
  consistent: boolean;
  formats: Record<NumberFormat, number>;
  samples: Record<NumberFormat, string[]>;
}

const SAMPLES = 3;
/** Entries read at a time: years of a group's registry are read without holding the event loop for all of them at once. */
const REPORT_PAGE = 2_000;

/** Every entry, in the report's order, a page at a time with the loop free between pages. */
async function* allEntries(prisma: PrismaClient) {
  let cursor: string | undefined;
  for (;;) {
    const page = await prisma.registryEntry.findMany({
      select: { id: true, number: true, company: true, year: true, sequence: true },
      orderBy: [{ company: 'asc' }, { year: 'desc' }, { sequence: 'desc' }, { id: 'asc' }],
      take: REPORT_PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    yield* page;
    if (page.length < REPORT_PAGE) return;
    cursor = page[page.length - 1].id;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export async function sequenceReport(prisma: PrismaClient): Promise<SequenceReport[]> {
  const counters = await prisma.registryCounter.findMany({ where: { type: 'SEQ' } });
  const byKey = new Map<string, SequenceReport>();
  const key = (c: string, y: number) => `${c}:${y}`;
  const get = (company: string, year: number) => {
    let r = byKey.get(key(company, year));
    if (!r) {
      r = { company, year, counter: null, actualMax: 0, entries: 0, consistent: false, formats: { current: 0, old: 0, legacy: 0 }, samples: { current: [], old: [], legacy: [] } };
      byKey.set(key(company, year), r);
    }
    return r;
  };
  for await (const e of allEntries(prisma)) {
    const r = get(e.company, e.year);
    const p = parseRegistryNumber(e.number, e.company as RegistryCompany);
    const format = p?.format ?? 'legacy';
    r.entries++;
    r.actualMax = Math.max(r.actualMax, e.sequence);
    r.formats[format]++;
    if (r.samples[format].length < SAMPLES) r.samples[format].push(e.number);
  }
  for (const c of counters) get(c.company, c.year).counter = c.value;
  for (const r of byKey.values()) r.consistent = (r.counter ?? 0) === r.actualMax;
  return [...byKey.values()].sort((a, b) => a.company.localeCompare(b.company) || b.year - a.year);
}

export interface SequenceRepair {
  counters: Array<{ company: string; year: number; before: number | null; after: number }>;
  converted: Array<{ id: string; from: string; to: string }>;
  skipped: Array<{ id: string; number: string; reason: string }>;
}

export async function repairSequences(prisma: PrismaClient, actor: { userId: string; name: string }): Promise<SequenceRepair> {
  const out: SequenceRepair = { counters: [], converted: [], skipped: [] };
  const keys = await prisma.registryEntry.groupBy({ by: ['company', 'year'] });
  const counterKeys = await prisma.registryCounter.findMany({ where: { type: 'SEQ' }, select: { company: true, year: true } });
  const all = new Map<string, { company: string; year: number }>();
  for (const k of [...keys, ...counterKeys]) all.set(`${k.company}:${k.year}`, { company: k.company, year: k.year });
  for (const { company, year } of all.values()) {
    await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`registry-seq:${company}:${year}`}))`;
      const entries = await tx.registryEntry.findMany({ where: { company, year }, select: { id: true, number: true, sequence: true } });
      const taken = new Set(entries.map((e) => e.number));
      for (const e of entries) {
        const p = parseRegistryNumber(e.number, company as RegistryCompany);
        if (!p || p.format === 'current') continue;
        const to = formatRegistryNumber(company as RegistryCompany, year, p.sequence);
        if (taken.has(to)) {
          out.skipped.push({ id: e.id, number: e.number, reason: `numărul ${to} există deja` });
          continue;
        }
        await tx.registryEntry.update({ where: { id: e.id }, data: { number: to, updatedBy: actor.userId } });
        await addHistory(tx, { entryId: e.id, company, number: to, action: 'renumber', actor, changes: [{ field: 'number', before: e.number, after: to }] });
        taken.add(to);
        out.converted.push({ id: e.id, from: e.number, to });
      }
      const max = entries.reduce((m, e) => Math.max(m, e.sequence), 0);
      const before = await tx.registryCounter.findUnique({ where: { type_company_year: { type: 'SEQ', company, year } } });
      await tx.registryCounter.upsert({
        where: { type_company_year: { type: 'SEQ', company, year } },
        create: { type: 'SEQ', company, year, value: max },
        update: { value: max },
      });
      out.counters.push({ company, year, before: before?.value ?? null, after: max });
    }, { maxWait: 60_000, timeout: 120_000 });
  }
  return out;
}
