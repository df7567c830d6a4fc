/**
 * External status names, colour classes and labels (CONTRACT.md 3). No imports: the registry
 * page's browser bundle uses them as well as the server.
 */
export const STATUS_CODES = ['inregistrat', 'in_analiza', 'completari', 'aprobat', 'emis', 'respins'] as const;
export type StatusCode = (typeof STATUS_CODES)[number];
export type StatusClass = 'amber' | 'blue' | 'green' | 'red';

/**
 * Where a request ends: the batch check stops asking the authority about an entry this many days
 * after it reached one (a user's "check now" still does). Tracked entries pile up over the years;
 * an hourly check of every finished request was a page fetch each, for nothing.
 */
export const FINAL_STATUS_CODES: readonly StatusCode[] = ['emis', 'respins'];
export const FINAL_STATUS_WATCH_DAYS = 30;

/** CONTRACT.md 3. */
export const STATUS_CLASS: Record<StatusCode, StatusClass> = {
  inregistrat: 'blue',
  in_analiza: 'amber',
  completari: 'amber',
  aprobat: 'green',
  emis: 'green',
  respins: 'red',
};

/** How the authority writes each status (comma-below spelling); the UI shows the same labels. */
export const STATUS_LABEL: Record<StatusCode, string> = {
  inregistrat: 'Înregistrată',
  in_analiza: 'În analiză',
  completari: 'Completări solicitate',
  aprobat: 'Aprobată',
  emis: 'Emisă',
  respins: 'Respinsă',
};
