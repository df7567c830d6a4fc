/**
 * The office's pure rules (docs/office.md): the companies, the vault's caller of a session, the
 * address book's contact types and the vault module's version. No I/O: the routes' schemas and the
 * pages share them.
 */

export const VAULT_MODULE_VERSION = '0.2.0'; // spec 9.5

export const CONTACT_TYPES = ['person', 'company', 'institution', 'supplier', 'authority'] as const;

/** The group company sees every company's entries (CONTRACT.md section 2). */
export const GROUP_COMPANY = 'G';
export const COMPANIES = ['B', 'U', 'S', 'G'] as const;

export interface VaultCaller {
  userId: string;
  email: string;
  company: string | null;
}

/** The vault's caller of a session, as the vault routes and the office page both read it. */
export function vaultCaller(s: { user: { id: string; email: string; company: string | null } }): VaultCaller {
  return { userId: s.user.id, email: s.user.email, company: s.user.company };
}
