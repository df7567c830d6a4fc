/**
 * Who sees and writes which registry entries (issue 17, CONTRACT.md 2), and what personal data a
 * viewer may read (BRIEF "personal data"; docs/registry.md "Access"):
 *   - read: the viewer's own company; company G (the group) and admins read every company;
 *   - write (create, edit, delete, attachments): the viewer's own company; admins any company;
 *   - an entry the viewer may not read does not exist for them (404), one they may read but not
 *     write answers 403;
 *   - restricted viewers (basic panel, or enrichment scope basic/none) never get the sender,
 *     the recipient or the petitioner's name, in entries, in the history, or through `q`.
 */
import { personalDataHidden, type EnrichmentScope } from '../auth/rules';
import { errors } from '../errors';
import { COMPANIES, type RegistryCompany } from './numbers';

export interface RegistryViewer {
  userId: string;
  name: string;
  company: RegistryCompany | null;
  isAdmin: boolean;
  /** Personal fields (sender, recipient, petitioner) are hidden from this viewer. */
  restricted: boolean;
}

export interface ViewerSession {
  user: { id: string; name: string; company: RegistryCompany | null };
  isAdmin: boolean;
  basicPanel: boolean;
  enrichmentScope: EnrichmentScope | null;
}

export function registryViewer(s: ViewerSession): RegistryViewer {
  return {
    userId: s.user.id,
    name: s.user.name,
    company: s.user.company,
    isAdmin: s.isAdmin,
    restricted: s.basicPanel || personalDataHidden(s.enrichmentScope),
  };
}

/** The companies whose entries the viewer reads. */
export function readableCompanies(v: RegistryViewer): RegistryCompany[] {
  if (v.isAdmin || v.company === 'G') return [...COMPANIES];
  return v.company ? [v.company] : [];
}

export function canRead(v: RegistryViewer, company: string): boolean {
  return (readableCompanies(v) as string[]).includes(company);
}

export function canWrite(v: RegistryViewer, company: string): boolean {
  return v.isAdmin || v.company === company;
}

/** The companies whose entries the viewer changes. */
export function writableCompanies(v: RegistryViewer): RegistryCompany[] {
  return COMPANIES.filter((c) => canWrite(v, c));
}

export function notFoundEntry() {
  return errors.notFound('Înregistrarea nu există.');
}

/** Throws 404 for an entry the viewer cannot read, 403 for one they cannot change. */
export function assertWritable(v: RegistryViewer, company: string): void {
  if (!canRead(v, company)) throw notFoundEntry();
  if (!canWrite(v, company)) {
    throw errors.forbidden(`Nu puteți modifica registrul companiei ${company}; doar registrul propriei companii.`);
  }
}
