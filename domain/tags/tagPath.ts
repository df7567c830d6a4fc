/**
 * One line of the tag file (CONTRACT.md section 3): levels separated by `, ` as
 * `Project, Phase, Activity`, the project level reading `<code> <name>` (`B-0123 Casa Popescu`).
 * Pure.
 */

export type TagCategory = 'project' | 'phase' | 'activity';

export interface TagPath {
  /** Canonical text: levels trimmed and joined by `, `. */
  path: string;
  category: TagCategory;
  project: string;
  phase: string | null;
  activity: string | null;
  /** `B-0123` when the project level starts with a code. */
  projectCode: string | null;
  /** The project's name without its code. */
  projectName: string;
  /** Company letter implied by the code (B, U, S, G), if any. */
  company: string | null;
}

const CODE = /^([A-Z]{1,3})-(\d{1,6})(?:\s+(.*))?$/;
/** Registry company codes (CONTRACT.md section 3): three-letter forms map to the letter. */
const COMPANY_OF_PREFIX: Record<string, string> = { B: 'B', U: 'U', S: 'S', G: 'G', BTG: 'B', URB: 'U', STD: 'S', GRP: 'G' };

/** Splits a line into levels; null for a line that is not a tag (blank or `#` comment) or too deep. */
export function parseTagLine(line: string): TagPath | null {
  const trimmed = line.replace(/^\uFEFF/, '').trim();
  if (!trimmed || trimmed.startsWith('#')) return null;
  const levels = trimmed.split(',').map((l) => l.trim());
  if (levels.length > 3 || levels.some((l) => l === '')) return null;
  return tagFromLevels(levels[0], levels[1] ?? null, levels[2] ?? null);
}

export function tagFromLevels(project: string, phase: string | null, activity: string | null): TagPath {
  const p = project.trim().replace(/\s+/g, ' ');
  const ph = phase?.trim() || null;
  const a = ph ? activity?.trim() || null : null;
  const m = CODE.exec(p);
  const projectCode = m ? `${m[1]}-${m[2]}` : null;
  return {
    path: [p, ph, a].filter((x): x is string => !!x).join(', '),
    category: a ? 'activity' : ph ? 'phase' : 'project',
    project: p,
    phase: ph,
    activity: a,
    projectCode,
    projectName: m ? (m[3] ?? '').trim() : p,
    company: m ? (COMPANY_OF_PREFIX[m[1]] ?? null) : null,
  };
}

/** A level may not hold the separator: `, ` would split it into two levels. */
export function validLevel(text: string): boolean {
  return text.trim() !== '' && !text.includes(',') && !/[\r\n]/.test(text);
}
