/**
 * The heavy-work caps in shared mode (issue 44 item 3, domain/limits/workSlotLeases.ts): two
 * lease keepers on the test store stand for two web processes. The per-user and global caps hold
 * across them, a released slot is free at once, and a dead holder's slot (a process killed: no
 * renewal, no delete) frees itself when its lease expires, not before; a live holder's renewed
 * lease outlasts its TTL. WorkSlots keeps its API: `acquire` answers 429 past the shared caps.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { shareWorkSlots, unshareWorkSlots, WorkSlots } from '../../domain/concurrency';
import { AppError } from '../../domain/errors';
import { WorkSlotLeases } from '../../domain/limits/workSlotLeases';
import { closePool, getPool } from '../../domain/db/pool';

const kind = () => `test-${randomUUID()}`;
const keepers: WorkSlotLeases[] = [];
const keeper = (ttlMs = 30_000) => {
  const k = new WorkSlotLeases(getPool(), ttlMs);
  keepers.push(k);
  return k;
};
const lease = (c: Awaited<ReturnType<WorkSlotLeases['claim']>>) => ('lease' in c ? c.lease : undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  for (const k of keepers) k.stop();
  unshareWorkSlots();
  await getPool().query(`DELETE FROM work_slot_leases WHERE kind LIKE 'test-%'`);
  await closePool();
});

describe('work slot leases shared by processes', () => {
  it('hold the per-user and the global cap across two processes; a release frees the slot at once', async () => {
    const k = kind();
    const [p1, p2] = [keeper(), keeper()];
    const first = lease(await p1.claim(k, 'u:ana', 2, 1));
    expect(first).toBeDefined();
    expect(await p2.claim(k, 'u:ana', 2, 1)).toEqual({ refused: 'user' });
    expect(lease(await p2.claim(k, 'u:dan', 2, 1))).toBeDefined();
    expect(await p1.claim(k, 'u:radu', 2, 1)).toEqual({ refused: 'global' });
    await p1.release(first!);
    expect(lease(await p2.claim(k, 'u:radu', 2, 1))).toBeDefined();
  });

  it('parallel claims from two processes never pass the global cap', async () => {
    const k = kind();
    const [p1, p2] = [keeper(), keeper()];
    const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? p1 : p2).claim(k, `u:${i}`, 5, 1)));
    expect(claims.filter((c) => 'lease' in c)).toHaveLength(5);
    expect(claims.filter((c) => 'refused' in c && c.refused === 'global')).toHaveLength(7);
  });

  it("a dead holder's slot frees itself when its lease expires, not before; a live holder's is renewed", async () => {
    const k = kind();
    const dead = keeper(1500);
    const live = keeper(1500);
    expect(lease(await dead.claim(k, 'u:ana', 10, 1))).toBeDefined();
    expect(lease(await live.claim(k, 'u:dan', 10, 1))).toBeDefined();
    dead.stop();
    const other = keeper();
    expect(await other.claim(k, 'u:ana', 10, 1)).toEqual({ refused: 'user' });
    await sleep(2500);
    expect(lease(await other.claim(k, 'u:ana', 10, 1))).toBeDefined();
    // Past its TTL too, but renewed by its process meanwhile.
    expect(await other.claim(k, 'u:dan', 10, 1)).toEqual({ refused: 'user' });
  });

  it('WorkSlots in shared mode answers 429 rate_limited past the caps another process holds', async () => {
    const k = kind();
    const slots = new WorkSlots({
      kind: k,
      global: () => 1,
      perUser: () => 1,
      retryAfterSeconds: 7,
      messages: { user: 'Aveți deja o lucrare în curs.', global: 'Sunt prea multe lucrări în curs.' },
    });
    const otherProcess = keeper();
    const held = lease(await otherProcess.claim(k, 'u:dan', 1, 1));
    expect(held).toBeDefined();
    shareWorkSlots(getPool(), 30_000);
    const refused = await slots.acquire('u:ana').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).toBody()).toMatchObject({ error: 'rate_limited', message: 'Sunt prea multe lucrări în curs.' });
    await otherProcess.release(held!);
    const release = await slots.acquire('u:ana');
    expect(slots.active).toBe(1);
    const mine = await slots.acquire('u:ana').catch((e: unknown) => e);
    expect((mine as AppError).toBody()).toMatchObject({ error: 'rate_limited', message: 'Aveți deja o lucrare în curs.' });
    release();
    expect(slots.active).toBe(0);
  });
});
