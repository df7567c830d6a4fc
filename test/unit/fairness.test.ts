/**
 * The pieces that keep one user from stalling the others (issue 25): the one heavy-work limiter
 * (global and per-user caps, bounded wait), the fair portal token bucket (callers served in turn,
 * bounded queues, abort), and the JSON walk's depth and size caps.
 */
import { describe, expect, test } from '@jest/globals';
import { AppError } from '../../domain/errors';
import { WorkSlots } from '../../domain/concurrency';
import { RateLimiter } from '../../domain/outside/rateLimiter';
import { MAX_JSON_DEPTH, MAX_JSON_NODES, checkJsonShape, nulPaths } from '../../api/http/route';
import { timeoutForInput } from '../../domain/childProcess';

const slots = (global: number, perUser: number, queue?: { max: number; waitMs: number }) =>
  new WorkSlots({ global: () => global, perUser: () => perUser, retryAfterSeconds: 7, messages: { user: 'al tău', global: 'al tuturor' }, queue });

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a throw');
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

describe('WorkSlots', () => {
  test('past the per-user cap: 429 rate_limited with Retry-After and the per-user message', async () => {
    const s = slots(4, 2);
    await s.acquire('u:dan');
    await s.acquire('u:dan');
    const err = await refusal(s.acquire('u:dan'));
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limited');
    expect(err.headers).toEqual({ 'Retry-After': '7' });
    expect(err.message).toBe('al tău');
    // Another user still gets a slot.
    await expect(s.acquire('u:ana')).resolves.toEqual(expect.any(Function));
  });

  test('past the global cap: 429 with the global message; a released slot is free again (once)', async () => {
    const s = slots(2, 2);
    const a = await s.acquire('u:dan');
    await s.acquire('u:ana');
    const err = await refusal(s.acquire('u:ion'));
    expect(err.status).toBe(429);
    expect(err.message).toBe('al tuturor');
    a();
    a();
    expect(s.active).toBe(1);
    await s.acquire('u:ion');
    await expect(refusal(s.acquire('u:eva'))).resolves.toMatchObject({ status: 429 });
  });

  test('a bounded queue: waiters get slots in order, one past the queue is refused, a waiter past its time is refused', async () => {
    const s = slots(1, 10, { max: 2, waitMs: 200 });
    const first = await s.acquire('u:a');
    const second = s.acquire('u:b');
    const third = s.acquire('u:c');
    expect(s.queued).toBe(2);
    await expect(refusal(s.acquire('u:d'))).resolves.toMatchObject({ status: 429, message: 'al tuturor' });
    first();
    const releaseSecond = await second;
    expect(s.queued).toBe(1);
    // Nobody releases now: the third waits its 200 ms, then is refused.
    await expect(refusal(third)).resolves.toMatchObject({ status: 429 });
    expect(s.queued).toBe(0);
    releaseSecond();
    expect(s.active).toBe(0);
  });

  test('a waiter whose signal aborts leaves the queue', async () => {
    const s = slots(1, 10, { max: 5, waitMs: 10_000 });
    await s.acquire('u:a');
    const ac = new AbortController();
    const waiting = s.acquire('u:b', ac.signal);
    ac.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(s.queued).toBe(0);
  });

  test('run gives the slot back when the work fails', async () => {
    const s = slots(1, 1);
    await expect(s.run('u:a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(s.active).toBe(0);
  });
});

describe('fair portal token bucket', () => {
  test('tokens go round the callers: a flood queued first does not delay a later caller behind all of it', async () => {
    const limiter = new RateLimiter(20, { perCaller: 100, total: 1000 });
    // Spend the initial burst.
    await Promise.all(Array.from({ length: 20 }, () => limiter.take({ key: 'u:warm' })));
    const order: string[] = [];
    const dan = Array.from({ length: 10 }, () => limiter.take({ key: 'u:dan' }).then(() => order.push('dan')));
    const ana = Array.from({ length: 2 }, () => limiter.take({ key: 'u:ana' }).then(() => order.push('ana')));
    await Promise.all([...dan, ...ana]);
    // ana's two calls are served within the first four tokens, not after dan's ten.
    expect(order.indexOf('ana')).toBeLessThan(4);
    expect(order.lastIndexOf('ana')).toBeLessThan(4);
  });

  test("one caller's queue is bounded (429), others still queue; the background lane neither counts against them nor grows without bound", async () => {
    const limiter = new RateLimiter(5, { perCaller: 3, total: 5 });
    // Spend the initial burst.
    await Promise.all(Array.from({ length: 5 }, (_, i) => limiter.take({ key: `u:warm${i}` })));
    // Work without a caller (activities) fills its own lane up to the total bound, then is refused.
    const background = Array.from({ length: 5 }, () => limiter.take(undefined));
    expect(thrown(() => limiter.take(undefined))).toMatchObject({ status: 429, code: 'rate_limited' });
    const held = [0, 1, 2].map(() => limiter.take({ key: 'u:dan' }));
    expect(thrown(() => limiter.take({ key: 'u:dan' }))).toMatchObject({ status: 429, code: 'rate_limited' });
    const ana = limiter.take({ key: 'u:ana' });
    const ion = limiter.take({ key: 'u:ion' });
    // The users' total bound: a sixth waiting user call is refused, the five background ones not counted.
    expect(thrown(() => limiter.take({ key: 'u:eva' }))).toMatchObject({ status: 429 });
    expect(limiter.queued).toBe(10);
    const order: string[] = [];
    await Promise.all([
      ...background.map((p) => p.then(() => order.push('background'))),
      ...held.map((p) => p.then(() => order.push('dan'))),
      ana.then(() => order.push('ana')),
      ion.then(() => order.push('ion')),
    ]);
    // The background lane, queued first, takes one slot in turn: ana and ion are served in the first round.
    expect(order.indexOf('ana')).toBeLessThan(4);
    expect(order.indexOf('ion')).toBeLessThan(4);
    expect(limiter.queued).toBe(0);
  });

  test('a queued call whose caller aborts leaves the queue with the abort reason', async () => {
    const limiter = new RateLimiter(1, { perCaller: 10, total: 10 });
    await limiter.take({ key: 'u:warm' });
    const ac = new AbortController();
    const waiting = limiter.take({ key: 'u:dan', signal: ac.signal });
    expect(limiter.queued).toBe(1);
    ac.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(limiter.queued).toBe(0);
    // An already aborted caller is refused at once.
    expect(() => limiter.take({ key: 'u:dan', signal: ac.signal })).toThrow('deadline');
  });
});

describe('JSON walk caps', () => {
  const nested = (depth: number): unknown => {
    let v: unknown = 'fund';
    for (let i = 0; i < depth; i++) v = { a: v };
    return v;
  };

  test(`${MAX_JSON_DEPTH} levels pass; ${MAX_JSON_DEPTH + 1} are a 400 bad_request naming the place`, () => {
    expect(nulPaths(nested(MAX_JSON_DEPTH))).toEqual([]);
    const err = thrown(() => nulPaths(nested(MAX_JSON_DEPTH + 1)));
    expect(err).toMatchObject({ status: 400, code: 'bad_request' });
    expect((err.details as Array<{ field: string }>)[0].field).toBe(Array(MAX_JSON_DEPTH).fill('a').join('.'));
  });

  test('a body nested a million levels deep is refused without a stack overflow', () => {
    let v: unknown = [];
    for (let i = 0; i < 1_000_000; i++) v = [v];
    expect(thrown(() => nulPaths(v))).toMatchObject({ status: 400 });
  });

  test(`more than ${MAX_JSON_NODES} values are a 400`, () => {
    expect(thrown(() => nulPaths(new Array(MAX_JSON_NODES).fill(0)))).toMatchObject({ status: 400 });
    expect(nulPaths(new Array(MAX_JSON_NODES - 1).fill(0))).toEqual([]);
  });

  test('the raw body is refused before parsing: too deep, even when it is not JSON at all, or too many values', () => {
    const raw = (text: string) => Buffer.from(text);
    const deep = `{"v":${'['.repeat(6_000_000)}${']'.repeat(6_000_000)}}`;
    expect(thrown(() => checkJsonShape(raw(deep)))).toMatchObject({ status: 400, code: 'bad_request', message: expect.stringContaining('imbricat prea adânc') });
    // Garbage after the 65th bracket: the depth is what answers, so JSON.parse never ran.
    expect(thrown(() => checkJsonShape(raw(`${'['.repeat(MAX_JSON_DEPTH + 1)}not json`)))).toMatchObject({ status: 400 });
    expect(() => checkJsonShape(raw(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`))).not.toThrow();
    // Brackets, commas and escaped quotes inside strings are text, not structure.
    expect(() => checkJsonShape(raw(JSON.stringify({ s: `${'['.repeat(500)}"${','.repeat(MAX_JSON_NODES)}` })))).not.toThrow();
    expect(thrown(() => checkJsonShape(raw(JSON.stringify(new Array(MAX_JSON_NODES + 1).fill(0)))))).toMatchObject({
      status: 400,
      message: expect.stringContaining('prea multe valori'),
    });
  });

  test('NUL characters are still found, with their paths', () => {
    expect(nulPaths({ a: ['ok', 'x\u0000y'], b: { c: '\u0000' } })).toEqual(['a.1', 'b.c']);
    expect(nulPaths('\u0000')).toEqual(['(body)']);
  });
});

test('a tool timeout grows with its input and stops at the ceiling', () => {
  expect(timeoutForInput(0, 30_000, 2_000, 600_000)).toBe(30_000);
  expect(timeoutForInput(100 * 1024 * 1024, 30_000, 2_000, 600_000)).toBe(230_000);
  expect(timeoutForInput(500 * 1024 * 1024, 30_000, 2_000, 600_000)).toBe(600_000);
});
