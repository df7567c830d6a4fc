/**
 * The sync-rules page's vocabulary and window notation (browser and server alike), kept apart from
 * the page so it is tested without a browser. The API writes a window past midnight with an end
 * hour above 24 (23:00–28:00, docs/scheduling.md); people write "23:00 to 04:00", so the form
 * takes an end at or before the start as "the next day" and converts it, and the list shows it
 * back the way people write it.
 */

import type { Frequency, StepCode, TimeWindow } from '../../../../domain/scheduling/rules';
import type { DueUat, SyncRule } from '../../../../domain/scheduling/service';
import { formatWhen as formatDate } from '../../lib/dates';
import { ApiError } from '../../lib/api';

// The API's shapes, as the domain defines them (type-only: nothing of the server is bundled).
export type { Frequency, StepCode };
export type RuleWindow = TimeWindow;
export type SyncRuleView = SyncRule;
export type ScheduledUat = DueUat;

export const FREQUENCY_LABEL: Record<Frequency, string> = {
  hourly: 'la fiecare oră',
  every_6h: 'la 6 ore',
  daily: 'zilnic',
  weekly: 'săptămânal',
  monthly: 'lunar',
  manual: 'manual (doar la cerere)',
};
export const FREQUENCIES = Object.keys(FREQUENCY_LABEL) as Frequency[];

export const STEP_LABEL: Record<StepCode, string> = {
  T: 'Terenuri',
  C: 'Clădiri',
  N: 'Fără geometrie',
  E: 'Îmbogățire',
};
export const STEP_CODES = Object.keys(STEP_LABEL) as StepCode[];

export const SOURCE_LABEL: Record<ScheduledUat['source'], string> = {
  uat: 'regula UAT-ului',
  county: 'regula județului',
  default: 'implicită (reîmprospătare de noapte)',
};

/** ISO weekday (Monday = 1) → short Romanian name. */
export const DAY_SHORT: Record<number, string> = {
  1: 'L',
  2: 'Ma',
  3: 'Mi',
  4: 'J',
  5: 'V',
  6: 'S',
  7: 'D',
};
export const DAY_LONG: Record<number, string> = {
  1: 'luni',
  2: 'marți',
  3: 'miercuri',
  4: 'joi',
  5: 'vineri',
  6: 'sâmbătă',
  7: 'duminică',
};

const HHMM = /^(\d{1,2}):(\d{2})$/;

function minutes(text: string): number | null {
  const m = HHMM.exec(text.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h > 47 || min > 59 ? null : h * 60 + min;
}

const clock = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/**
 * A window as people write it (`start` and `end` both 00:00–23:59; an end at or before the start
 * is the next day) → the API's notation. Null when a time is not HH:MM or no day is chosen.
 */
export function windowFromForm(days: readonly number[], start: string, end: string): RuleWindow | null {
  const s = minutes(start);
  const e = minutes(end);
  if (s === null || e === null || s >= 24 * 60 || e >= 24 * 60 || days.length === 0) return null;
  return {
    days: [...days].sort((a, b) => a - b),
    start: clock(s),
    end: clock(e <= s ? e + 24 * 60 : e),
  };
}

/** The API's window back in the form's terms: end on a 24-hour clock, `nextDay` when it crosses midnight. */
export function windowToForm(w: RuleWindow): {
  days: number[];
  start: string;
  end: string;
  nextDay: boolean;
} {
  const e = minutes(w.end) ?? 0;
  return {
    days: [...w.days],
    start: w.start,
    end: clock(e % (24 * 60)),
    nextDay: e >= 24 * 60,
  };
}

/** "V, S, D 23:00–04:00 (a doua zi)". */
export function formatWindow(w: RuleWindow): string {
  const f = windowToForm(w);
  const days = [...f.days]
    .sort((a, b) => a - b)
    .map((d) => DAY_SHORT[d] ?? String(d))
    .join(', ');
  return `${days} ${f.start}–${f.end}${f.nextDay ? ' (a doua zi)' : ''}`;
}

export function formatWindows(ws: readonly RuleWindow[]): string {
  return ws.length === 0 ? 'oricând' : ws.map(formatWindow).join('; ');
}

/** A date on Romanian time, short ("lun., 23 nov. 2026, 23:00"); a dash for none. */
export function formatWhen(iso: string | null): string {
  return formatDate(iso, 'dateTimeWeekday');
}

/** What the rule applies to, for the list. */
export function ruleTarget(r: Pick<SyncRuleView, 'scope' | 'siruta' | 'county'>, uatName?: string): string {
  if (r.scope === 'county') return `Județul ${r.county}`;
  return uatName ? `${uatName} (${r.siruta})` : `UAT ${r.siruta}`;
}

/**
 * The message a failed call shows. 410 is the central-API gate (spec 5.9): said plainly, with
 * what still works; otherwise the API client's message (the API's own Romanian message and the
 * fields it names).
 */
export const failureText = (err: unknown): string => (err instanceof ApiError && err.status === 410 ? CENTRAL_API_NOTICE : (err as Error).message);

export const CENTRAL_API_NOTICE =
  'Contul dumneavoastră folosește API-ul central: regulile de sincronizare pot fi consultate, dar nu pot fi create, modificate sau șterse de aici (răspuns 410).';
