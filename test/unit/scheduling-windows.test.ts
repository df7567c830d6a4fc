/**
 * Window arithmetic of spec 8 on Romanian time, table-driven, across both clock changes of 2026
 * (last Sundays: 29 March 03:00 → 04:00, 25 October 04:00 → 03:00, both inside the weekend
 * window of Saturday night), plus rule windows, their validation and rule resolution.
 */
import { describe, expect, test } from '@jest/globals';
import {
  AUTO_REFRESH_WINDOWS,
  occurrences,
  sessionWeekendWindow,
  weekendWindow,
  windowProblems,
  windowState,
  zonedInstant,
  type TimeWindow,
} from '../../domain/scheduling/windows';
import { byPriority, dueAfter, resolveRule, scheduleFor, type RuleLike } from '../../domain/scheduling/rules';

const Z = (iso: string) => Date.parse(iso);
const H = 3_600_000;

describe('weekend window (Fri, Sat, Sun 23:00–04:00; forced 22:00–05:00)', () => {
  const table: Array<{ what: string; at: string; forced?: boolean; open: boolean; ends?: string; next: string }> = [
    { what: 'Friday 23:30 EET', at: '2026-03-27T21:30:00Z', open: true, ends: '2026-03-28T02:00:00Z', next: '2026-03-28T21:00:00Z' },
    { what: 'Friday 22:30 EET, normal', at: '2026-03-27T20:30:00Z', open: false, next: '2026-03-27T21:00:00Z' },
    { what: 'Friday 22:30 EET, forced', at: '2026-03-27T20:30:00Z', forced: true, open: true, ends: '2026-03-28T03:00:00Z', next: '2026-03-28T20:00:00Z' },
    // Spring-forward night: Saturday 23:00 EET (21:00Z) to Sunday 04:00 EEST (01:00Z) = 4 hours.
    { what: 'Sunday 00:30 EET, spring night', at: '2026-03-28T22:30:00Z', open: true, ends: '2026-03-29T01:00:00Z', next: '2026-03-29T20:00:00Z' },
    { what: 'Sunday 04:30 EEST, after the spring night', at: '2026-03-29T01:30:00Z', open: false, next: '2026-03-29T20:00:00Z' },
    { what: 'Sunday 04:30 EEST, forced', at: '2026-03-29T01:30:00Z', forced: true, open: true, ends: '2026-03-29T02:00:00Z', next: '2026-03-29T19:00:00Z' },
    // Fall-back night: Saturday 23:00 EEST (20:00Z) to Sunday 04:00 EET (02:00Z) = 6 hours.
    { what: 'Sunday 03:30 EEST (first 03:30), autumn night', at: '2026-10-25T00:30:00Z', open: true, ends: '2026-10-25T02:00:00Z', next: '2026-10-25T21:00:00Z' },
    { what: 'Sunday 03:30 EET (second 03:30), autumn night', at: '2026-10-25T01:30:00Z', open: true, ends: '2026-10-25T02:00:00Z', next: '2026-10-25T21:00:00Z' },
    { what: 'Sunday 04:00 EET, autumn night over', at: '2026-10-25T02:00:00Z', open: false, next: '2026-10-25T21:00:00Z' },
    { what: 'Monday 03:59 EET, Sunday night still open', at: '2026-10-26T01:59:00Z', open: true, ends: '2026-10-26T02:00:00Z', next: '2026-10-30T21:00:00Z' },
    { what: 'Tuesday 23:30 EEST, no window', at: '2026-06-16T20:30:00Z', open: false, next: '2026-06-19T20:00:00Z' },
    { what: 'Thursday 23:30 EEST, forced has no weekday nights', at: '2026-06-18T20:30:00Z', forced: true, open: false, next: '2026-06-19T19:00:00Z' },
  ];
  test.each(table)('$what', ({ at, forced, open, ends, next }) => {
    const s = weekendWindow(Z(at), forced ?? false);
    expect(s.open).toBe(open);
    if (ends) expect(new Date(s.current!.end).toISOString()).toBe(new Date(Z(ends)).toISOString());
    expect(new Date(s.nextStart!).toISOString()).toBe(new Date(Z(next)).toISOString());
  });

  // What a session (and the queue page) sees: a forced session uses 22:00–05:00 only the night
  // it is in; the next window shown is the ordinary 23:00 one, never the forced 22:00 (issue 30).
  test.each([
    { what: 'Wednesday noon, forced run going on', at: '2026-11-25T10:00:00Z', forced: true, open: false, next: '2026-11-27T21:00:00Z' },
    { what: 'Wednesday noon, no session', at: '2026-11-25T10:00:00Z', forced: false, open: false, next: '2026-11-27T21:00:00Z' },
    { what: 'Friday 22:30 EET, forced: open, next Saturday 23:00', at: '2026-03-27T20:30:00Z', forced: true, open: true, ends: '2026-03-28T03:00:00Z', next: '2026-03-28T21:00:00Z' },
    { what: 'Friday 22:30 EET, not forced: closed', at: '2026-03-27T20:30:00Z', forced: false, open: false, next: '2026-03-27T21:00:00Z' },
    { what: 'Sunday 04:30 EEST after the spring change, forced: next Sunday 23:00 EEST', at: '2026-03-29T01:30:00Z', forced: true, open: true, ends: '2026-03-29T02:00:00Z', next: '2026-03-29T20:00:00Z' },
    { what: 'Sunday 04:30 EET after the autumn change, forced: next Sunday 23:00 EET', at: '2026-10-25T02:30:00Z', forced: true, open: true, ends: '2026-10-25T03:00:00Z', next: '2026-10-25T21:00:00Z' },
    { what: 'Thursday 22:30 EEST, forced: no weekday night, next Friday 23:00', at: '2026-06-18T19:30:00Z', forced: true, open: false, next: '2026-06-19T20:00:00Z' },
  ])('a session: $what', ({ at, forced, open, ends, next }) => {
    const s = sessionWeekendWindow(Z(at), forced);
    expect(s.open).toBe(open);
    if (ends) expect(new Date(s.current!.end).toISOString()).toBe(new Date(Z(ends)).toISOString());
    expect(new Date(s.nextStart!).toISOString()).toBe(new Date(Z(next)).toISOString());
  });

  test('the Saturday night of the spring change lasts 4 hours, of the autumn change 6, a normal one 5', () => {
    const length = (at: string) => {
      const s = weekendWindow(Z(at));
      return (s.current!.end - s.current!.start) / H;
    };
    expect(length('2026-03-28T22:30:00Z')).toBe(4);
    expect(length('2026-10-24T22:30:00Z')).toBe(6);
    expect(length('2026-06-20T22:30:00Z')).toBe(5);
    // Forced on the same nights: 6 and 8 hours (7 normally).
    const forced = (at: string) => {
      const s = weekendWindow(Z(at), true);
      return (s.current!.end - s.current!.start) / H;
    };
    expect(forced('2026-03-28T22:30:00Z')).toBe(6);
    expect(forced('2026-10-24T22:30:00Z')).toBe(8);
  });

  test('three window nights a weekend, each starting at 23:00 Romanian time', () => {
    const nights = occurrences([{ days: [5, 6, 7], start: '23:00', end: '28:00' }], Z('2026-10-21T12:00:00Z'), 0, 6);
    expect(nights.map((n) => new Date(n.start).toISOString())).toEqual(['2026-10-23T20:00:00.000Z', '2026-10-24T20:00:00.000Z', '2026-10-25T21:00:00.000Z']);
  });
});

describe('auto-refresh and rule windows', () => {
  test.each([
    { at: '2026-06-15T22:30:00Z', open: true, what: 'Tuesday 01:30 EEST' },
    { at: '2026-06-16T02:00:00Z', open: false, what: 'Tuesday 05:00 EEST, window over' },
    { at: '2026-06-20T22:30:00Z', open: false, what: 'Sunday 01:30 EEST, no auto-refresh at the weekend' },
    { at: '2026-06-21T22:30:00Z', open: true, what: 'Monday 01:30 EEST' },
  ])('auto-refresh: $what', ({ at, open }) => {
    expect(windowState(AUTO_REFRESH_WINDOWS, Z(at)).open).toBe(open);
  });

  test('no windows means always open', () => {
    expect(windowState([], Z('2026-06-16T12:00:00Z'))).toEqual({ open: true, nextStart: null });
  });

  test('zonedInstant maps wall times on both sides of a change', () => {
    expect(new Date(zonedInstant(2026, 3, 29, 2 * 60)).toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(new Date(zonedInstant(2026, 3, 29, 4 * 60)).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(new Date(zonedInstant(2026, 10, 25, 4 * 60)).toISOString()).toBe('2026-10-25T02:00:00.000Z');
    expect(new Date(zonedInstant(2026, 10, 24, 28 * 60)).toISOString()).toBe('2026-10-25T02:00:00.000Z');
  });

  test.each<{ w: TimeWindow; bad: string[] }>([
    { w: { days: [5], start: '23:00', end: '28:00' }, bad: [] },
    { w: { days: [1, 2], start: '01:00', end: '05:00' }, bad: [] },
    { w: { days: [5], start: '23:00', end: '04:00' }, bad: ['end'] },
    { w: { days: [5], start: '10:00', end: '10:00' }, bad: ['end'] },
    { w: { days: [5], start: '10:00', end: '35:00' }, bad: ['end'] },
    { w: { days: [0, 8], start: '25:00', end: '26:00' }, bad: ['days', 'start'] },
    { w: { days: [], start: '1:00', end: '02:00' }, bad: ['days', 'start'] },
  ])('window $w.start–$w.end on $w.days: problems $bad', ({ w, bad }) => {
    expect(windowProblems(w).map((p) => p.path)).toEqual(bad);
  });
});

describe('rule resolution and due times', () => {
  const rules: RuleLike[] = [
    { id: 'uat', scope: 'uat', siruta: 63394, county: null, frequency: 'hourly', priority: 2, windows: [], steps: ['T'], enabled: true },
    { id: 'county', scope: 'county', siruta: null, county: 'Covasna', frequency: 'weekly', priority: 4, windows: [{ days: [6], start: '02:00', end: '06:00' }], steps: ['T', 'C', 'E'], enabled: true },
    { id: 'off', scope: 'uat', siruta: 64130, county: null, frequency: 'daily', priority: 1, windows: [], steps: ['T'], enabled: false },
  ];
  test.each([
    { what: 'UAT rule over county rule', uat: { siruta: 63394, county: 'Covasna' }, source: 'uat', freq: 'hourly' },
    { what: 'county rule (county spelled differently)', uat: { siruta: 63740, county: 'COVASNA' }, source: 'county', freq: 'weekly' },
    { what: 'global default elsewhere', uat: { siruta: 42682, county: 'Brăila' }, source: 'default', freq: 'monthly' },
    { what: 'a disabled UAT rule still governs its UAT', uat: { siruta: 64130, county: 'Covasna' }, source: 'uat', freq: 'daily' },
  ])('$what', ({ uat, source, freq }) => {
    const r = resolveRule(uat, rules, 'monthly');
    expect(r.source).toBe(source);
    expect(r.frequency).toBe(freq);
  });

  test('due time follows the frequency; a rule window moves the start; disabled and manual never run', () => {
    const last = Z('2026-06-15T10:00:00Z');
    expect(dueAfter('every_6h', last)).toBe(last + 6 * H);
    expect(dueAfter('monthly', Z('2026-01-31T10:00:00Z'))).toBe(Z('2026-03-03T10:00:00Z'));
    expect(dueAfter('manual', last)).toBeNull();
    const county = resolveRule({ siruta: 63740, county: 'Covasna' }, rules, 'daily');
    // Weekly from Monday 15 June 13:00 EEST → due Monday 22 June, first window Saturday 27 June 02:00 EEST.
    const s = scheduleFor(county, last, last + H);
    expect(new Date(s.dueAt!).toISOString()).toBe('2026-06-22T10:00:00.000Z');
    expect(new Date(s.runAt!).toISOString()).toBe('2026-06-26T23:00:00.000Z');
    expect(scheduleFor(resolveRule({ siruta: 64130, county: 'Covasna' }, rules, 'daily'), last, last)).toEqual({ dueAt: null, runAt: null });
    // Never synced: due now.
    expect(scheduleFor(resolveRule({ siruta: 1, county: null }, rules, 'daily'), null, last)).toEqual({ dueAt: last, runAt: last });
  });

  test('priority 1 starts first, then the longest overdue', () => {
    const due = [
      { siruta: 3, priority: 5, dueAt: 100 },
      { siruta: 1, priority: 1, dueAt: 300 },
      { siruta: 2, priority: 5, dueAt: 50 },
    ];
    expect(due.sort(byPriority).map((d) => d.siruta)).toEqual([1, 2, 3]);
  });
});
