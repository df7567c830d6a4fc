/**
 * The one formatter of dates and times for every page (issue 30). Always on Romanian time: the
 * server renders a page in its own zone (UTC on a server) and the browser hydrates it in the
 * user's, so a date formatted without an explicit zone differs between the two and React throws
 * the server's HTML away (a hydration error, then a full re-render). A dash for no date.
 */
export const APP_TIME_ZONE = 'Europe/Bucharest';

type When = string | number | Date | null | undefined;

const formatters = {
  /** 25.11.2026 */
  date: new Intl.DateTimeFormat('ro-RO', { dateStyle: 'short', timeZone: APP_TIME_ZONE }),
  /** 25.11.2026, 14:46 */
  dateTime: new Intl.DateTimeFormat('ro-RO', { dateStyle: 'short', timeStyle: 'short', timeZone: APP_TIME_ZONE }),
  /** 25.11.2026, 14:46:05 */
  dateTimeSeconds: new Intl.DateTimeFormat('ro-RO', { dateStyle: 'short', timeStyle: 'medium', timeZone: APP_TIME_ZONE }),
  /** 25 nov. 2026, 14:46 */
  dateTimeMedium: new Intl.DateTimeFormat('ro-RO', { dateStyle: 'medium', timeStyle: 'short', timeZone: APP_TIME_ZONE }),
  /** 25 nov. 2026, 14:46:05 */
  dateTimeMediumSeconds: new Intl.DateTimeFormat('ro-RO', { dateStyle: 'medium', timeStyle: 'medium', timeZone: APP_TIME_ZONE }),
  /** miercuri, 25 noiembrie 2026 la 14:46 */
  dateTimeFull: new Intl.DateTimeFormat('ro-RO', { dateStyle: 'full', timeStyle: 'short', timeZone: APP_TIME_ZONE }),
  /** mie., 25 nov. 2026, 14:46 */
  dateTimeWeekday: new Intl.DateTimeFormat('ro-RO', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: APP_TIME_ZONE,
  }),
  /** 14:46:05 */
  time: new Intl.DateTimeFormat('ro-RO', { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: APP_TIME_ZONE }),
} as const;

export type DateStyle = keyof typeof formatters;

/** `when` (ISO text, epoch ms or a Date) on Romanian time in the given style; '—' when absent or invalid. */
export function formatWhen(when: When, style: DateStyle = 'dateTime'): string {
  if (when === null || when === undefined || when === '') return '—';
  const d = when instanceof Date ? when : new Date(when);
  return Number.isNaN(d.getTime()) ? '—' : formatters[style].format(d);
}

/**
 * A calendar day (`2026-03-10`, or a timestamp) as `10.03.2026`. A bare date is read at noon UTC,
 * the same day on Romanian time whatever the zone of the server or the browser.
 */
export function formatDay(day: string | null | undefined): string {
  if (!day) return '—';
  return formatWhen(/^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T12:00:00Z` : day, 'date');
}

/** Today's calendar date in Romania as YYYY-MM-DD (the date inputs' format). */
export function todayInRomania(now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: APP_TIME_ZONE }).format(now);
}
