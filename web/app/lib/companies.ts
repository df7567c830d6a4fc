/** Display names of the companies of CONTRACT.md section 2 (letters B, U, S, G; codes of section 3). */
import type { Company } from '../../../domain/auth/rules';

const COMPANY_CODES: Record<Company, string> = { B: 'BTG', U: 'URB', S: 'STD', G: 'GRP' };

/** "URB (U)", "GRP (G) · grup" or a Romanian placeholder when the claim is absent. */
export function companyLabel(company: Company | null | undefined): string {
  if (!company) return 'fără companie';
  const base = `${COMPANY_CODES[company]} (${company})`;
  return company === 'G' ? `${base} · grup` : base;
}
