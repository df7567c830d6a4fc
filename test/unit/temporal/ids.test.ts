import { isSingletonWorkflowId, jobWorkflowId, parseWorkflowId, singletonWorkflowId } from '../../../temporal/ids';
import { allTaskQueues, isTaskQueueName } from '../../../temporal/common/queues';

describe('workflow ids', () => {
  test('a singleton id is <kind>:<scope> and parses back without a run id', () => {
    const id = singletonWorkflowId('sync-all-counties', 'ro');
    expect(id).toBe('sync-all-counties:ro');
    expect(parseWorkflowId(id)).toEqual({ kind: 'sync-all-counties', scope: 'ro' });
    expect(isSingletonWorkflowId(id)).toBe(true);
  });

  test('a job id is <kind>:<scope>:<ulid> with a fresh ulid per call', () => {
    const a = jobWorkflowId('layer-sync', '179132');
    const b = jobWorkflowId('layer-sync', '179132');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^layer-sync:179132:[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(parseWorkflowId(a)).toEqual({ kind: 'layer-sync', scope: '179132', runId: a.split(':')[2] });
    expect(isSingletonWorkflowId(a)).toBe(false);
  });

  test('a run started by a schedule parses with its nominal time', () => {
    expect(parseWorkflowId('session-housekeeping:global-2026-11-23T01:07:00Z')).toEqual({
      kind: 'session-housekeeping',
      scope: 'global',
      scheduledAt: '2026-11-23T01:07:00Z',
    });
  });

  test('ids outside the convention parse to null', () => {
    for (const id of ['', 'nokind', 'Bad:scope', 'kind:', 'a:b:not-a-ulid', 'a:b:c:d']) {
      expect(parseWorkflowId(id)).toBeNull();
    }
  });

  test('kinds must be kebab-case and scopes must not contain a colon', () => {
    expect(() => singletonWorkflowId('LayerSync', 'x')).toThrow(/kind/);
    expect(() => singletonWorkflowId('layer-sync', 'a:b')).toThrow(/scope/);
    expect(() => jobWorkflowId('layer-sync', 'x', 'not-a-ulid')).toThrow(/ULID/);
  });
});

describe('task queues', () => {
  test('the five queues of the architecture are declared', () => {
    expect([...allTaskQueues].sort()).toEqual(['cf-orders', 'exports', 'landreg', 'notifications', 'store']);
    expect(isTaskQueueName('store')).toBe(true);
    expect(isTaskQueueName('stores')).toBe(false);
  });
});
