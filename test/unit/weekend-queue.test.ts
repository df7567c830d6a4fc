/** The weekend queue's choice of the next step (domain/scheduling/weekend.ts pickNext). */
import { describe, expect, test } from '@jest/globals';
import { pickNext, type QueueItem } from '../../domain/scheduling/weekend';
import type { StepStates } from '../../domain/scheduling/weekendSteps';

const steps = (s: Partial<StepStates> = {}): StepStates => ({ sync_terenuri: 'pending', sync_cladiri: 'pending', import_nogeom: 'pending', enrich: 'pending', ...s });
const city = (siruta: number, name: string, s?: Partial<StepStates>): QueueItem => ({ siruta, name, steps: steps(s), position: siruta, lastRunAt: null });

describe('pickNext', () => {
  const done = { sync_terenuri: 'done', sync_cladiri: 'done', import_nogeom: 'done', enrich: 'done' } as const;
  const queue = [city(1, 'Brăila', done), city(2, 'Sfântu Gheorghe', { sync_terenuri: 'done' }), city(3, 'Buftea')];

  test('the first unfinished step in the queue order', () => {
    expect(pickNext(queue)).toEqual({ siruta: 2, name: 'Sfântu Gheorghe', step: 'sync_cladiri' });
  });

  test('a city started from its own row comes first, not the queue\'s first city', () => {
    expect(pickNext(queue, 3)).toEqual({ siruta: 3, name: 'Buftea', step: 'sync_terenuri' });
  });

  test('a preferred city with nothing left, or not in the queue, leaves the order as it is', () => {
    expect(pickNext(queue, 1)).toEqual({ siruta: 2, name: 'Sfântu Gheorghe', step: 'sync_cladiri' });
    expect(pickNext(queue, 99)).toEqual({ siruta: 2, name: 'Sfântu Gheorghe', step: 'sync_cladiri' });
    expect(pickNext([city(1, 'Brăila', done)], 1)).toBeNull();
  });
});
