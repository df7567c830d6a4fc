/**
 * Time windows on Romanian wall-clock time (spec 8, CONTRACT.md section 3), as pure functions of
 * an instant: no clock is read here, so workflow code (deterministic, `Date.now()` is workflow
 * time) and the API share them.
 *
 * A window is `{days, start, end}`: `days` are the ISO weekdays (Monday = 1) on which the window
 * STARTS, `start`/`end` are `HH:MM` wall-clock times in Europe/Bucharest. A window that runs past
 * midnight is written with an end hour above 24, the convention of GTFS timetables:
 * Friday 23:00 to Saturday 04:00 is `{days:[5], start:"23:00", end:"28:00"}`. An end at or before
 * the start is invalid (`windowProblems`), and a window lasts at most 24 hours.
 *
 * Both ends are wall-clock times converted to instants through Intl's time-zone data, so a window
 * night that contains a clock change is shorter or longer in real time: Saturday 23:00 to Sunday
 * 04:00 on the last Sunday of March lasts 4 hours, on the last Sunday of October 6 hours.
 */

export const SCHEDULING_TIME_ZONE = 'Europe/Bucharest';

export interface TimeWindow {
  /** ISO weekdays the window starts on, Monday = 1 .. Sunday = 7. */
  days: number[];
  /** `HH:MM`, 00:00..23:59. */
  start: string;
  /** `HH:MM`, after `start`; hours 24..47 mean the next day (GTFS style). */
  end: string;
}

/** Spec 8: Friday, Saturday and Sunday nights, 23:00 to 04:00. */
export const WEEKEND_WINDOWS: readonly TimeWindow[] = [{ days: [5, 6, 7], start: '23:00', end: '28:00' }];
/** Spec 8: a forced weekend run may use 22:00 to 05:00 of the same nights. */
export const FORCED_WEEKEND_WINDOWS: readonly TimeWindow[] = [{ days: [5, 6, 7], start: '22:00', end: '29:00' }];
/** Spec 8: auto-refresh on weekday nights (Monday to Friday mornings), 01:00 to 05:00. */
export const AUTO_REFRESH_WINDOWS: readonly TimeWindow[] = [{ days: [1, 2, 3, 4, 5], start: '01:00', end: '05:00' }];

const HHMM = /^(\d{2}):(\d{2})$/;

/** Minutes after the start day's midnight, or null when the text is not `HH:MM` (hours 0..47). */
export function parseClock(text: string): number | null {
  const m = HHMM.exec(text);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 47 || min > 59) return null;
  return h * 60 + min;
}

/** Why a window is invalid (Romanian, for the 400 details), keyed by field; empty when valid. */
export function windowProblems(w: TimeWindow): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  if (!Array.isArray(w.days) || w.days.length === 0) out.push({ path: 'days', message: 'Indicați cel puțin o zi (1 = luni … 7 = duminică).' });
  else if (w.days.some((d) => !Number.isInteger(d) || d < 1 || d > 7)) out.push({ path: 'days', message: 'Zilele sunt numere de la 1 (luni) la 7 (duminică).' });
  const s = parseClock(w.start);
  const e = parseClock(w.end);
  if (s === null || s >= 24 * 60) out.push({ path: 'start', message: 'Ora de început are forma HH:MM, între 00:00 și 23:59.' });
  if (e === null) out.push({ path: 'end', message: 'Ora de sfârșit are forma HH:MM; după miezul nopții se scrie peste 24 (23:00–28:00 = 23:00–04:00).' });
  if (s !== null && e !== null && s < 24 * 60) {
    if (e <= s) out.push({ path: 'end', message: 'Ora de sfârșit trebuie să fie după ora de început; o fereastră peste noapte se scrie cu ora de sfârșit peste 24 (de ex. 23:00–28:00).' });
    else if (e - s > 24 * 60) out.push({ path: 'end', message: 'O fereastră durează cel mult 24 de ore.' });
  }
  return out;
}

// ---- wall-clock arithmetic through Intl -------------------------------------------------------

const partsFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: SCHEDULING_TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  weekday: 'short',
});

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** ISO weekday, Monday = 1. */
  weekday: number;
}

/** The Romanian wall clock at an instant. */
export function wallClock(ms: number): WallClock {
  const p: Record<string, string> = {};
  for (const part of partsFormat.formatToParts(new Date(ms))) p[part.type] = part.value;
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
    weekday: WEEKDAYS[p.weekday],
  };
}

/** Offset of Romanian time from UTC at an instant (2 or 3 hours), in ms. */
function offsetAt(ms: number): number {
  const w = wallClock(ms);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant at which the Romanian wall clock shows `minutes` after midnight of the given date
 * (minutes may exceed 24 h: the next day). A wall time the spring change skips (03:00–03:59 on the
 * last Sunday of March) maps to the instant an hour later. The window ends used here (04:00,
 * 05:00) exist exactly once on both change nights.
 */
export function zonedInstant(year: number, month: number, day: number, minutes: number): number {
  const asUtc = Date.UTC(year, month - 1, day, 0, minutes);
  const guess = asUtc - offsetAt(asUtc);
  const corrected = asUtc - offsetAt(guess);
  return corrected;
}

/** The local calendar date `delta` days after the given one. */
function addDays(year: number, month: number, day: number, delta: number): { year: number; month: number; day: number; weekday: number } {
  const d = new Date(Date.UTC(year, month - 1, day + delta));
  const dow = d.getUTCDay();
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: dow === 0 ? 7 : dow };
}

export interface Interval {
  start: number;
  end: number;
}

/** Every occurrence of `windows` that starts on a local date from `fromDay` to `toDay` days around `ms`. */
export function occurrences(windows: readonly TimeWindow[], ms: number, fromDay = -2, toDay = 8): Interval[] {
  const w = wallClock(ms);
  const out: Interval[] = [];
  for (let delta = fromDay; delta <= toDay; delta++) {
    const date = addDays(w.year, w.month, w.day, delta);
    for (const win of windows) {
      if (!win.days.includes(date.weekday)) continue;
      const s = parseClock(win.start);
      const e = parseClock(win.end);
      if (s === null || e === null || e <= s) continue;
      out.push({ start: zonedInstant(date.year, date.month, date.day, s), end: zonedInstant(date.year, date.month, date.day, e) });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

export interface WindowState {
  /** Whether `ms` is inside a window. */
  open: boolean;
  /** The open window (when `open`). */
  current?: Interval;
  /** Start of the next window after `ms` (after the current one when open); null when there is none within a week. */
  nextStart: number | null;
}

/**
 * Where `ms` stands against `windows`. No windows at all means "always open" (a sync rule without
 * windows may run at any time); `nextStart` is then null.
 */
export function windowState(windows: readonly TimeWindow[], ms: number): WindowState {
  if (windows.length === 0) return { open: true, nextStart: null };
  const all = occurrences(windows, ms);
  // Overlapping windows merge: the open interval ends at the end of the last one that overlaps.
  let current: Interval | undefined;
  for (const i of all) {
    if (i.start <= ms && ms < i.end) current = current ? { start: Math.min(current.start, i.start), end: Math.max(current.end, i.end) } : { ...i };
  }
  if (current) for (const i of all) if (i.start <= current.end && i.end > current.end) current.end = i.end;
  const after = current ? current.end : ms;
  const next = all.find((i) => i.start > after);
  const nextStart = next ? next.start : null;
  return current ? { open: true, current, nextStart } : { open: false, nextStart };
}

/** The first instant at or after `ms` inside `windows` (itself when open, null when never within a week). */
export function nextOpenAt(windows: readonly TimeWindow[], ms: number): number | null {
  const s = windowState(windows, ms);
  return s.open ? ms : s.nextStart;
}

/** Spec 8 weekend deep sync window (forced: 22:00 to 05:00). */
export function weekendWindow(ms: number, forced = false): WindowState {
  return windowState(forced ? FORCED_WEEKEND_WINDOWS : WEEKEND_WINDOWS, ms);
}

/**
 * The weekend window as a session lives it, and as the queue page shows it: a forced session
 * uses the forced window (22:00–05:00) only while one is open, the night it was forced in (the
 * `weekendSync` workflow drops `forced` once its window has closed), so the next start is always
 * the ordinary 23:00 one, in Romanian wall-clock time whatever the clock change (issue 30: after a
 * forced start the page showed the next window at 22:00).
 */
export function sessionWeekendWindow(ms: number, forced: boolean): WindowState {
  const forcedNow = forced ? weekendWindow(ms, true) : null;
  if (forcedNow?.open && forcedNow.current) {
    return { open: true, current: forcedNow.current, nextStart: weekendWindow(forcedNow.current.end, false).nextStart };
  }
  return weekendWindow(ms, false);
}
