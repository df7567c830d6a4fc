/**
 * Large JSON bodies off the event loop (issue 40; api/http/jsonShape.ts, api/http/jsonBody.ts):
 * the worker thread's job hands a route's raw fields back as compact UTF-8 JSON text in memory of
 * its own, the rest as text the loop rebuilds (at most MAX_LOOP_NODES values), NUL strings named by
 * their place, shape failures as data; and the job really runs on a worker thread.
 */
import { describe, expect, test } from '@jest/globals';
import { MAX_LOOP_NODES, parseOffLoop, type ParseResult } from '../../api/http/jsonShape';
import { parseInWorker } from '../../api/http/jsonBody';
import { RawJson, jsonUtf8 } from '../../api/http/rawJson';

const job = (body: unknown, rawFields: string[] = ['value']) => ({ id: 1, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), rawFields });

describe('the parse job', () => {
  test('a raw field comes back as compact JSON text with its UTF-8 size; the rest as text', () => {
    const r = parseOffLoop(job('{"namespace": "n", "key": "k", "value": {"a": [1, 2], "ș": "ț"}}'));
    expect(r).toMatchObject({ id: 1, ok: true, rest: '{"namespace":"n","key":"k"}', nul: [] });
    const utf8 = r.ok ? r.raw.value : new Uint8Array();
    expect(Buffer.from(utf8).toString('utf8')).toBe('{"a":[1,2],"ș":"ț"}');
    expect(utf8.byteLength).toBe(21);
    // Its memory is its own, so it moves to the loop's thread without a copy.
    expect(utf8.byteOffset === 0 && utf8.buffer.byteLength === 21).toBe(true);
  });

  test('a field not declared raw, and a body that is not an object, stay structure', () => {
    expect(parseOffLoop(job({ value: [1] }, []))).toMatchObject({ ok: true, rest: '{"value":[1]}', raw: {} });
    expect(parseOffLoop(job([{ value: 1 }]))).toMatchObject({ ok: true, rest: '[{"value":1}]', raw: {} });
  });

  test('NUL strings are named by their place, in the raw field and outside it', () => {
    const r = parseOffLoop(job({ key: 'a\u0000', value: { list: ['ok', 'x\u0000y'] } }));
    expect(r).toMatchObject({ ok: true, nul: ['value.list.1', 'key'] });
  });

  test(`the raw field may hold many values; outside it more than ${MAX_LOOP_NODES} are refused`, () => {
    expect(parseOffLoop(job({ value: new Array(MAX_LOOP_NODES * 2).fill(0) }))).toMatchObject({ ok: true });
    const r = parseOffLoop(job({ value: 1, other: new Array(MAX_LOOP_NODES + 1).fill(0) }));
    expect(r).toMatchObject({ ok: false, kind: 'shape', message: expect.stringContaining(`cel mult ${MAX_LOOP_NODES}`) });
  });

  test('broken JSON and too deep nesting are refusals, not throws', () => {
    expect(parseOffLoop(job('{"value": [1, 2'))).toMatchObject({ ok: false, kind: 'syntax' });
    expect(parseOffLoop(job(`{"value": ${'['.repeat(65)}${']'.repeat(65)}}`))).toMatchObject({ ok: false, kind: 'shape', message: expect.stringContaining('imbricat') });
  });
});

describe('the worker thread', () => {
  test('runs the job off the calling thread and answers it', async () => {
    const body = Buffer.from(JSON.stringify({ namespace: 'n', value: { big: 'x'.repeat(1000) } }));
    const r: ParseResult = await parseInWorker(body, ['value']);
    expect(r).toMatchObject({ ok: true, rest: '{"namespace":"n"}', nul: [] });
    expect(r.ok && r.raw.value.byteLength).toBe(1010);
    // Two at once each get their own answer.
    const [a, b] = await Promise.all([parseInWorker(Buffer.from('{"value":1}'), ['value']), parseInWorker(Buffer.from('{"value":2}'), ['value'])]);
    expect([a, b].map((x) => (x.ok ? Buffer.from(x.raw.value).toString() : null))).toEqual(['1', '2']);
  });
});

test('jsonUtf8 reads a raw field and a parsed value alike', () => {
  expect(jsonUtf8(new RawJson(Buffer.from('{"a":1}'))).toString()).toBe('{"a":1}');
  expect(jsonUtf8({ ș: 1 })).toEqual(Buffer.from('{"ș":1}'));
  expect(Object.keys(new RawJson(Buffer.from('"secret"')))).toEqual([]);
});
