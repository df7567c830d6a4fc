/**
 * Auto-refresh (spec 8), the pure part: the night's UATs are spread evenly across the weekday
 * window 01:00–05:00 (never closer than the minimum gap, never starting after the window), and a
 * UAT more than 30% enriched is refreshed in magic mode. Also the sync-rules page's window
 * notation (people write 23:00–04:00, the API 23:00–28:00).
 */
import { describe, expect, test } from '@jest/globals';
import { AUTO_REFRESH_MIN_GAP_MS, delayBeforeStart, refreshModeFor, staggerPlan } from '../../domain/scheduling/autoRefresh';
import { AUTO_REFRESH_WINDOWS, windowState } from '../../domain/scheduling/windows';
import { formatWindow, formatWindows, windowFromForm, windowToForm, failureText, CENTRAL_API_NOTICE } from '../../web/app/components/sync/syncRules';
import { errorFrom } from '../../web/app/lib/api';

const MIN = 60_000;
const H = 60 * MIN;

describe('magic mode above 30% enrichment', () => {
  test.each([
    [0, 'base'],
    [0.3, 'base'],
    [0.3001, 'magic'],
    [0.75, 'magic'],
    [1, 'magic'],
  ] as const)('enrichment share %p → %s', (share, mode) => {
    expect(refreshModeFor(share)).toBe(mode);
  });
});

describe('staggering across the weekday window', () => {
  // Tuesday 16 June 2026, 01:00–05:00 EEST, from the window table itself.
  const night = windowState(AUTO_REFRESH_WINDOWS, Date.parse('2026-06-15T22:30:00Z')).current!;

  test('the window is the 4 hours from 01:00 to 05:00 Romanian time', () => {
    expect(new Date(night.start).toISOString()).toBe('2026-06-15T22:00:00.000Z');
    expect(night.end - night.start).toBe(4 * H);
  });

  test('8 UATs start 30 minutes apart, the first at 01:00, the last at 04:30', () => {
    const plan = staggerPlan(8, night.start, night.end);
    expect(plan.slotMs).toBe(30 * MIN);
    expect(plan.starts).toHaveLength(8);
    expect(plan.starts[0]).toBe(night.start);
    expect(plan.starts.at(-1)).toBe(night.start + 3.5 * H);
  });

  test('many UATs are never closer than the minimum gap; those past the window wait for the next night', () => {
    const plan = staggerPlan(1000, night.start, night.end);
    expect(plan.slotMs).toBe(AUTO_REFRESH_MIN_GAP_MS);
    expect(plan.starts).toHaveLength((4 * H) / AUTO_REFRESH_MIN_GAP_MS);
    for (let i = 1; i < plan.starts.length; i++) expect(plan.starts[i] - plan.starts[i - 1]).toBe(AUTO_REFRESH_MIN_GAP_MS);
    expect(plan.starts.at(-1)!).toBeLessThan(night.end);
  });

  test('a catch-up start at 03:00 spreads over the two hours left', () => {
    const at = night.start + 2 * H;
    const plan = staggerPlan(4, at, night.end);
    expect(plan.starts.map((s) => (s - at) / MIN)).toEqual([0, 30, 60, 90]);
  });

  test('nothing to refresh, or no time left: no starts', () => {
    expect(staggerPlan(0, night.start, night.end).starts).toEqual([]);
    expect(staggerPlan(5, night.end, night.end).starts).toEqual([]);
  });

  test.each([
    { what: 'before its slot: wait for it', planned: 30, now: 10, prevEnd: 5, delay: 20 },
    { what: 'the previous sync overran the slot: the gap after its end', planned: 30, now: 40, prevEnd: 40, delay: 0.5 },
    { what: 'the previous ended long ago, slot reached: at once', planned: 30, now: 30, prevEnd: 12, delay: 0 },
    { what: 'the first UAT: at its slot', planned: 0, now: 0, prevEnd: null, delay: 0 },
    { what: 'the gap would cross the window end: not tonight', planned: 200, now: 239.8, prevEnd: 239.8, delay: null },
    { what: 'the window has closed', planned: 200, now: 240, prevEnd: null, delay: null },
  ])('delay: $what', ({ planned, now, prevEnd, delay }) => {
    const t = (m: number) => night.start + m * MIN;
    const d = delayBeforeStart(t(planned), t(now), prevEnd === null ? null : t(prevEnd), night.end);
    expect(d === null ? null : d / MIN).toBe(delay);
  });
});

describe('the sync-rules page window notation', () => {
  test.each([
    { days: [7, 5, 6], start: '23:00', end: '04:00', api: { days: [5, 6, 7], start: '23:00', end: '28:00' }, text: 'V, S, D 23:00–04:00 (a doua zi)' },
    { days: [1], start: '01:00', end: '05:00', api: { days: [1], start: '01:00', end: '05:00' }, text: 'L 01:00–05:00' },
    { days: [2], start: '10:00', end: '10:00', api: { days: [2], start: '10:00', end: '34:00' }, text: 'Ma 10:00–10:00 (a doua zi)' },
  ])('$start–$end → $api.end and back', ({ days, start, end, api, text }) => {
    const w = windowFromForm(days, start, end)!;
    expect(w).toEqual(api);
    expect(windowToForm(w)).toEqual({ days: api.days, start, end, nextDay: api.end > '24' });
    expect(formatWindow(w)).toBe(text);
  });

  test('incomplete windows are refused before they reach the API', () => {
    expect(windowFromForm([], '23:00', '04:00')).toBeNull();
    expect(windowFromForm([5], '24:00', '04:00')).toBeNull();
    expect(windowFromForm([5], '23', '04:00')).toBeNull();
  });

  test('no windows reads "oricând"', () => {
    expect(formatWindows([])).toBe('oricând');
  });

  test('a 410 reads as the central-API notice; a 400 lists the fields', () => {
    expect(failureText(errorFrom(410, { message: 'x' }))).toBe(CENTRAL_API_NOTICE);
    expect(failureText(errorFrom(400, { message: 'Cererea nu este validă.', details: [{ field: 'priority', problem: 'Prioritatea este între 1 (cea mai mare) și 10.' }] }))).toBe(
      'Cererea nu este validă. (priority: Prioritatea este între 1 (cea mai mare) și 10.)'
    );
  });
});
