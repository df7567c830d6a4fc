/**
 * Auto-refresh (spec 8), the pure part the `autoRefresh` workflow runs on: which mode a UAT is
 * refreshed in, and when each UAT of the night starts. No clock or database is read here, so the
 * workflow (deterministic) and the tests share it.
 *
 * Staggering: the night's UATs are spread evenly across the window (01:00–05:00 on weekdays, so
 * 8 UATs start 30 minutes apart), never closer than the minimum gap; a sync that overruns its
 * slot pushes the next start to its end plus that gap, so the portal never sees two starts in a
 * burst. UATs whose slot would begin at or after the window's end wait for the next night (the
 * least recently synced go first, so each night takes the next ones).
 */

/** Spec 8 "refresh-all magic mode": a UAT whose parcels are more than 30% enriched is refreshed in magic mode. */
export const MAGIC_ENRICHMENT_RATIO = 0.3;

/** Base or magic, from the share (0..1) of the UAT's parcels that carry enrichment. */
export function refreshModeFor(enrichmentShare: number): 'base' | 'magic' {
  return enrichmentShare > MAGIC_ENRICHMENT_RATIO ? 'magic' : 'base';
}

/** The shortest pause between two UATs of one night (the end of one and the start of the next). */
export const AUTO_REFRESH_MIN_GAP_MS = 30_000;

export interface StaggerPlan {
  /** Time between two planned starts. */
  slotMs: number;
  /** Planned start of each UAT that fits the window, in order (fewer than `count` when they do not all fit). */
  starts: number[];
}

/** Spreads `count` UATs evenly across [windowStart, windowEnd), slots at least `minGapMs` apart. */
export function staggerPlan(count: number, windowStart: number, windowEnd: number, minGapMs = AUTO_REFRESH_MIN_GAP_MS): StaggerPlan {
  const length = Math.max(0, windowEnd - windowStart);
  if (count <= 0 || length === 0) return { slotMs: 0, starts: [] };
  const slotMs = Math.max(minGapMs, Math.floor(length / count));
  const fit = Math.min(count, Math.ceil(length / slotMs));
  return { slotMs, starts: Array.from({ length: fit }, (_, i) => windowStart + i * slotMs) };
}

/**
 * How long to wait before the next UAT: until its planned start, and at least `minGapMs` after
 * the previous one ended (null for the first). Null when it must not start at all: the window
 * has closed.
 */
export function delayBeforeStart(plannedStart: number, now: number, previousEndedAt: number | null, windowEnd: number, minGapMs = AUTO_REFRESH_MIN_GAP_MS): number | null {
  const at = Math.max(plannedStart, now, previousEndedAt === null ? now : previousEndedAt + minGapMs);
  return at >= windowEnd ? null : at - now;
}
