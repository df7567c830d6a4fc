/**
 * Entries whose deadline falls in a window, for the daily digest (notifications area, type
 * `registry-deadline`; spec 6). The digest decides who gets what; this only reads the registry.
 */
import type { Db } from '../db/pool';
import type { RegistryCompany } from './numbers';

export interface DueRegistryEntry {
  id: string;
  number: string;
  company: RegistryCompany;
  subject: string;
  /** YYYY-MM-DD */
  deadline: string;
  assignee: string | null;
  createdBy: string | null;
}

/**
 * Entries with `from <= deadline <= to` (dates YYYY-MM-DD, inclusive) of the given companies
 * (`'all'`: every company, as the group company G sees), soonest first.
 */
export async function dueRegistryEntries(
  db: Db,
  opts: { from: string; to: string; companies: readonly RegistryCompany[] | 'all' },
): Promise<DueRegistryEntry[]> {
  const companies = opts.companies === 'all' ? null : [...opts.companies];
  const r = await db.query<DueRegistryEntry>(
    `SELECT id::text AS id, number, company, subject, to_char(deadline, 'YYYY-MM-DD') AS deadline, assignee,
            created_by AS "createdBy"
       FROM registry_entries
      WHERE deadline BETWEEN $1::date AND $2::date
        AND ($3::text[] IS NULL OR company = ANY($3::text[]))
      ORDER BY deadline, company, sequence`,
    [opts.from, opts.to, companies],
  );
  return r.rows;
}
