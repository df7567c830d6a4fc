/**
 * Ids of the jobs a workflow starts as children, in the `<kind>:<scope>:<ulid>` convention of
 * temporal/ids.ts. That module draws its ULID from `ulid` (node:crypto), which a workflow may not
 * import; here the ULID is made from workflow time and the replay-safe uuid4, so a replay
 * produces the same id.
 */
import { uuid4 } from '@temporalio/workflow';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function workflowUlid(): string {
  let t = Date.now();
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const hex = uuid4().replace(/-/g, '');
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return time + rand;
}

/** `<kind>:<scope>:<ulid>` for a child job (scope without ':'). */
export function childJobId(kind: string, scope: string | number): string {
  return `${kind}:${String(scope).replace(/:/g, '-')}:${workflowUlid()}`;
}
