import { formatDay } from './dates';
import { formatBytes } from './tilesFormat';

/**
 * How the registry page words an entry's change history (issue 30): field names in Romanian and
 * each value as a person reads it. An attachment is its file name and size, never its id.
 */
export const FIELD_LABEL: Record<string, string> = {
  number: 'număr',
  company: 'companie',
  direction: 'direcție',
  date: 'data',
  subject: 'subiect',
  sender: 'expeditor',
  recipient: 'destinatar',
  documentType: 'tip document',
  notes: 'observații',
  deadline: 'termen',
  assignee: 'responsabil',
  tracking: 'urmărire',
  'tracking.status': 'stare',
  attachments: 'atașamente',
};

const DIRECTIONS: Record<string, string> = { intrare: 'intrare', iesire: 'ieșire' };


function valueOf(field: string, x: unknown): string {
  if (x === null || x === undefined || x === '') return '—';
  if (typeof x === 'string' && (field === 'date' || field === 'deadline')) return formatDay(x.slice(0, 10));
  if (field === 'direction') return DIRECTIONS[String(x)] ?? String(x);
  if (typeof x !== 'object') return String(x);
  if (field === 'attachments') {
    const a = x as { name?: unknown; size?: unknown };
    const name = typeof a.name === 'string' ? a.name : 'fișier fără nume';
    return typeof a.size === 'number' ? `${name} (${formatBytes(a.size)})` : name;
  }
  // Other objects (the tracking block): their readable parts, never an internal id.
  return Object.entries(x as Record<string, unknown>)
    .filter(([k, v]) => k !== 'id' && v !== null && v !== undefined && v !== '')
    .map(([, v]) => String(v))
    .join(', ');
}

/** "atașamente: — → contract.pdf (12.0 KB)". */
export function describeChange(c: { field: string; before: unknown; after: unknown }): string {
  return `${FIELD_LABEL[c.field] ?? c.field}: ${valueOf(c.field, c.before)} → ${valueOf(c.field, c.after)}`;
}
