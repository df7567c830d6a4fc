/** Pure rules of the parcel sync: diffing, full-sync decisions, paging, progress retention. */
import { describe, expect, test } from '@jest/globals';
import { canSkipIdDiff, changedSinceBound, layerUnchanged, changesByLayer, describeSyncChanges, diffIds, fullSyncReason, layerName, pageChunks, pageOf } from '../../domain/landreg/sync/rules';
import {
  BACKGROUND_PROGRESS_RETENTION_MS,
  NORMAL_PROGRESS_RETENTION_MS,
  RECENT_START_MS,
  START_IN_FLIGHT_MS,
  percentOf,
  progressStillKept,
  recordedStartRuns,
} from '../../domain/landreg/jobKinds';
import { looksLikeMaintenance } from '../../domain/landreg/errors';
import { resolveCredentials } from '../../domain/landreg/client';
import { config } from '../../domain/config';
import { PG_INT_MAX, sirutaParam } from '../../domain/landreg/siruta';

describe('layer sync rules', () => {
  test('the id diff lists new and vanished ids, sorted', () => {
    expect(diffIds([5, 1, 3, 7], [3, 9, 1, 2])).toEqual({ added: [5, 7], removed: [2, 9] });
    expect(diffIds([], [])).toEqual({ added: [], removed: [] });
  });

  test.each([
    [{ firstSync: true, forceFullSync: false, localCount: 0 }, 'first_sync'],
    [{ firstSync: false, forceFullSync: true, localCount: 100 }, 'forced'],
    [{ firstSync: false, forceFullSync: false, localCount: 100, delta: 51 }, 'delta_over_threshold'],
    [{ firstSync: false, forceFullSync: false, localCount: 100, delta: 50 }, null],
    [{ firstSync: false, forceFullSync: false, localCount: 100 }, null],
  ])('full sync decision %j → %s', (input, expected) => {
    expect(fullSyncReason(input)).toBe(expected);
  });

  test('the quick count comparison skips the id list only when the counts add up', () => {
    expect(canSkipIdDiff(100, 100, 0)).toBe(true);
    expect(canSkipIdDiff(103, 100, 3)).toBe(true);
    expect(canSkipIdDiff(101, 100, 3)).toBe(false);
    expect(canSkipIdDiff(99, 100, 0)).toBe(false);
  });

  test('a layer is unchanged only when its sync would plan nothing', () => {
    const synced = { completed: true, localCount: 120, probe: false, remoteCount: 120, changedSinceWatermark: 0 };
    expect(layerUnchanged(synced)).toBe(true);
    // Never synced to the end, or nothing stored: the next sync is a first, full one.
    expect(layerUnchanged({ ...synced, completed: false })).toBe(false);
    expect(layerUnchanged({ ...synced, localCount: 0, remoteCount: 0 })).toBe(false);
    // A parcel to probe for new documentation, an update since the watermark, a count that differs.
    expect(layerUnchanged({ ...synced, probe: true })).toBe(false);
    expect(layerUnchanged({ ...synced, changedSinceWatermark: 1 })).toBe(false);
    expect(layerUnchanged({ ...synced, remoteCount: 121 })).toBe(false);
    expect(layerUnchanged({ ...synced, remoteCount: 119 })).toBe(false);
  });

  test('the change query starts at the next whole second after the watermark', () => {
    expect(changedSinceBound(Date.UTC(2024, 0, 1, 12, 0, 0, 500))).toBe(Date.UTC(2024, 0, 1, 12, 0, 1));
    expect(changedSinceBound(Date.UTC(2024, 0, 1, 12, 0, 0))).toBe(Date.UTC(2024, 0, 1, 12, 0, 1));
  });

  test('pages of 1000 ids are split into activity chunks', () => {
    expect(pageOf(999)).toBe(0);
    expect(pageOf(1000)).toBe(1);
    expect(pageChunks(12, 5)).toEqual([
      { fromPage: 0, toPage: 5 },
      { fromPage: 5, toPage: 10 },
      { fromPage: 10, toPage: 12 },
    ]);
    expect(pageChunks(0, 5)).toEqual([]);
  });
});

describe('progress retention (spec 3.3)', () => {
  const closed = new Date('2026-01-01T10:00:00Z');
  test('background jobs keep their progress for an hour', () => {
    expect(progressStillKept('sync-background', closed, new Date(closed.getTime() + BACKGROUND_PROGRESS_RETENTION_MS))).toBe(true);
    expect(progressStillKept('sync-county', closed, new Date(closed.getTime() + BACKGROUND_PROGRESS_RETENTION_MS + 1))).toBe(false);
  });
  test('normal jobs keep it for 60 seconds', () => {
    expect(progressStillKept('sync', closed, new Date(closed.getTime() + NORMAL_PROGRESS_RETENTION_MS))).toBe(true);
    expect(progressStillKept('sync', closed, new Date(closed.getTime() + NORMAL_PROGRESS_RETENTION_MS + 1))).toBe(false);
  });
  test('percent is bounded', () => {
    expect(percentOf(3, 4)).toBe(75);
    expect(percentOf(0, 0)).toBe(0);
    expect(percentOf(9, 4)).toBe(100);
  });
});

describe('a portal job\'s recorded start (spec 3.1 disconnect rule)', () => {
  test('a running job counts while its record is recent; an ended one never does', () => {
    expect(recordedStartRuns('running', 0)).toBe(true);
    expect(recordedStartRuns('running', RECENT_START_MS - 1)).toBe(true);
    expect(recordedStartRuns('running', RECENT_START_MS)).toBe(false);
    expect(recordedStartRuns('closed', 0)).toBe(false);
  });
  test('a start Temporal does not know yet counts while in flight, not once its starter must have died', () => {
    expect(recordedStartRuns('unknown', START_IN_FLIGHT_MS - 1)).toBe(true);
    expect(recordedStartRuns('unknown', START_IN_FLIGHT_MS)).toBe(false);
    expect(START_IN_FLIGHT_MS).toBeLessThan(RECENT_START_MS);
  });
});

describe('portal client rules', () => {
  test('maintenance is a 503 whose page names it', () => {
    expect(looksLikeMaintenance(503, '<h1>Portalul este în mentenanță</h1>')).toBe(true);
    expect(looksLikeMaintenance(503, 'Service Unavailable')).toBe(false);
    expect(looksLikeMaintenance(500, 'mentenanță')).toBe(false);
  });
  test('credentials come from the body, then the session, then the environment', () => {
    expect(resolveCredentials({ username: 'a', password: 'b' }, { username: 'c', password: 'd' })).toEqual({ username: 'a', password: 'b' });
    expect(resolveCredentials({ username: 'a' }, { username: 'c', password: 'd' })).toEqual({ username: 'c', password: 'd' });
    expect(resolveCredentials(undefined, { username: null, password: null })).toEqual({ username: config.landreg.username, password: config.landreg.password });
  });
});

describe('what a finished sync says it changed', () => {
  test('by layer, in words, singular for one, and nothing changed said plainly', () => {
    expect(
      describeSyncChanges([
        { layerId: 'TERENURI_ACTIVE', added: 3, removed: 1, changed: 4 },
        { layerId: 'CLADIRI_ACTIVE', added: 0, removed: 0, changed: 0 },
      ]),
    ).toBe('parcele: 3 adăugate, 1 eliminată, 4 modificate; clădiri: nicio schimbare');
    expect(describeSyncChanges([{ layerId: 'LIMITE_UAT', added: 1, removed: 0, changed: 1 }])).toBe('limite UAT: 1 adăugată, 1 modificată');
    expect(describeSyncChanges([{ layerId: 'ALT_STRAT', added: 1, removed: 0, changed: 0 }])).toBe('alt strat: 1 adăugată');
    expect(describeSyncChanges([])).toBe('nicio schimbare');
  });

  test('the progress names the layers in words, not by the portal\'s ids (issue 30)', () => {
    expect(layerName('TERENURI_ACTIVE')).toBe('parcelele');
    expect(layerName('CLADIRI_ACTIVE')).toBe('clădirile');
    expect(layerName('LIMITE_INTRAV_DYNAMIC')).toBe('limitele de intravilan');
    expect(layerName('LIMITE_UAT')).toBe('limita UAT');
  });

  test('many runs summed per layer, in the order the layers come', () => {
    expect(
      changesByLayer([
        { layerId: 'TERENURI_ACTIVE', added: 1, removed: 2, changed: 3 },
        { layerId: 'CLADIRI_ACTIVE', added: 5, removed: 0, changed: 0 },
        { layerId: 'TERENURI_ACTIVE', added: 10, removed: 0, changed: 1 },
      ]),
    ).toEqual([
      { layerId: 'TERENURI_ACTIVE', added: 11, removed: 2, changed: 4 },
      { layerId: 'CLADIRI_ACTIVE', added: 5, removed: 0, changed: 0 },
    ]);
  });
});

describe('a SIRUTA in a page\'s address (read as the API reads it)', () => {
  test('a whole positive number within int4 is read; nothing is null; anything else is invalid', () => {
    expect(sirutaParam('42682')).toBe(42682);
    expect(sirutaParam(' 42682 ')).toBe(42682);
    expect(sirutaParam(String(PG_INT_MAX))).toBe(PG_INT_MAX);
    expect(sirutaParam(null)).toBeNull();
    expect(sirutaParam('')).toBeNull();
    for (const bad of [String(PG_INT_MAX + 1), '0', '-5', '1.5', '1e300', 'abc', 'NaN']) expect(sirutaParam(bad)).toBe('invalid');
  });
});
