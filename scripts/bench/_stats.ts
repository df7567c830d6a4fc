/**
 * Statistics for side-by-side benches, pure (no store, no config): whether the gap between two
 * servers measured in pairs of passes is larger than the passes' own spread.
 */

/** The median of paired differences with its confidence interval, and what they say. */
export interface PairedDifference {
  /** Pairs measured. */
  n: number;
  /** The median of the differences (ours − theirs for each pair). */
  median: number;
  /** The interval's bounds: NaN when n is too small for the confidence asked. */
  low: number;
  high: number;
  /** The interval's actual coverage (the binomial law's steps make it at least the one asked). */
  confidence: number;
}

/** P(B ≤ k) for B ~ Binomial(n, ½), exact (n is a bench's pair count: tens, not thousands). */
function binomialHalfCdf(n: number, k: number): number {
  let term = 2 ** -n; // C(n, 0) / 2^n
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/**
 * The median of paired differences and its distribution-free confidence interval (the sign
 * test's: the order statistics d(k) and d(n+1−k), k the largest rank with P(B ≤ k−1) ≤ α/2 for
 * B ~ Binomial(n, ½)). It assumes only that each pair's difference is as likely above the true
 * median as below, which alternating the order of each pair's passes is there to make so; no
 * normality, which a latency's skewed passes do not have. For 16 pairs at 95 % the interval runs
 * from the 4th to the 13th difference (97.9 % coverage).
 */
export function pairedDifference(ours: readonly number[], theirs: readonly number[], confidence = 0.95): PairedDifference {
  if (ours.length !== theirs.length) throw new Error(`pairedDifference: ${ours.length} against ${theirs.length} values`);
  const d = ours.map((v, i) => v - theirs[i]).sort((a, b) => a - b);
  const n = d.length;
  const median = n === 0 ? NaN : n % 2 === 1 ? d[(n - 1) / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
  const alphaHalf = (1 - confidence) / 2;
  let k = 0;
  while (k + 1 <= n && binomialHalfCdf(n, k) <= alphaHalf) k++;
  if (k === 0) return { n, median, low: NaN, high: NaN, confidence: NaN };
  return { n, median, low: d[k - 1], high: d[n - k], confidence: 1 - 2 * binomialHalfCdf(n, k - 1) };
}

/**
 * Where a paired difference puts ours: `ahead` when the whole interval lies on the better side of
 * zero, `behind` when it lies on the worse side, `level` when it holds zero (the gap is within
 * what the passes vary by) or the pairs are too few to tell. `lowerIsBetter`: latencies yes,
 * throughput no.
 */
export function verdictOf(diff: PairedDifference, lowerIsBetter: boolean): 'ahead' | 'behind' | 'level' {
  if (Number.isNaN(diff.low)) return 'level';
  const better = lowerIsBetter ? diff.high < 0 : diff.low > 0;
  const worse = lowerIsBetter ? diff.low > 0 : diff.high < 0;
  return better ? 'ahead' : worse ? 'behind' : 'level';
}
