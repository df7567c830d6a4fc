/**
 * The side-by-side benches' reading of a gap (scripts/bench/_stats.ts): the median of paired
 * differences and its sign-test interval, checked against values worked by hand from the
 * binomial law, and the verdict each interval gives.
 */
import { describe, expect, test } from '@jest/globals';
import { pairedDifference, verdictOf } from '../../scripts/bench/_stats';

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

describe('pairedDifference', () => {
  test('16 pairs at 95 %: the 4th and 13th differences, 97.9 % coverage', () => {
    // Differences 1..16 in shuffled pairs: the interval's ranks, not the pairs' order, decide.
    const diffs = [9, 2, 16, 5, 11, 1, 14, 7, 3, 12, 8, 15, 4, 10, 6, 13];
    const d = pairedDifference(
      diffs.map((x) => x + 100),
      diffs.map(() => 100),
    );
    expect(d).toEqual({ n: 16, median: 8.5, low: 4, high: 13, confidence: expect.any(Number) });
    // 1 − 2·P(B ≤ 3), B ~ Bin(16, ½) = 1 − 2·697/65536.
    expect(d.confidence).toBeCloseTo(1 - (2 * 697) / 65536, 12);
  });

  test('an odd count takes the middle difference; 9 pairs at 95 %: the 2nd and 8th', () => {
    const d = pairedDifference(range(9), Array(9).fill(0));
    expect(d.median).toBe(5);
    expect([d.low, d.high]).toEqual([2, 8]);
    // 1 − 2·P(B ≤ 1), B ~ Bin(9, ½) = 1 − 2·10/512.
    expect(d.confidence).toBeCloseTo(1 - 20 / 512, 12);
  });

  test('five pairs are too few for 95 %: no interval, and the verdict is level', () => {
    const d = pairedDifference([5, 5, 5, 5, 5], [1, 1, 1, 1, 1]);
    expect(d.median).toBe(4);
    expect(Number.isNaN(d.low) && Number.isNaN(d.high)).toBe(true);
    expect(verdictOf(d, true)).toBe('level');
  });

  test('unequal lists are refused', () => {
    expect(() => pairedDifference([1, 2], [1])).toThrow('2 against 1');
  });
});

describe('verdictOf', () => {
  const interval = (low: number, high: number) => ({ n: 16, median: (low + high) / 2, low, high, confidence: 0.979 });

  test('latency: below zero throughout is ahead, above is behind, across zero is level', () => {
    expect(verdictOf(interval(-0.4, -0.1), true)).toBe('ahead');
    expect(verdictOf(interval(0.1, 0.4), true)).toBe('behind');
    expect(verdictOf(interval(-0.2, 0.3), true)).toBe('level');
    expect(verdictOf(interval(0, 0.3), true)).toBe('level');
  });

  test('throughput: the other way round', () => {
    expect(verdictOf(interval(20, 80), false)).toBe('ahead');
    expect(verdictOf(interval(-80, -20), false)).toBe('behind');
    expect(verdictOf(interval(-20, 80), false)).toBe('level');
  });
});
