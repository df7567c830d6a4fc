/**
 * A route's JSON answer (api/http/jsonResponse.ts `sendJson`, what defineRoute writes every result
 * with), over real HTTP on loopback: a long list goes out a slice at a time with the event loop
 * free between slices, byte for byte what `JSON.stringify` gives; a small answer is `res.json`'s
 * (with its Content-Length); a client that leaves stops the serialising.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Server } from 'node:http';
import express, { type Response } from 'express';
import { JSON_SLICE_ITEMS, sendJson } from '../../api/http/jsonResponse';

let server: Server;
let base: string;
/** What the last answer's writer saw: colleagues' turns taken while it wrote, and whether it finished. */
let last: { turns: number; ended: boolean } = { turns: 0, ended: false };
let serialised = 0;

const item = (i: number) => ({ siruta: 100_000 + i, uatName: `Comuna Ștefănești ${i}`, layerId: 'TERENURI_ACTIVE', featureCount: i * 7, lastSuccessAt: null, note: undefined });
const LONG = { items: Array.from({ length: 12 * JSON_SLICE_ITEMS + 17 }, (_, i) => item(i)), total: 12 * JSON_SLICE_ITEMS + 17, skipped: undefined };
/** A finished job's progress: its result's list of UATs two objects down. */
const NESTED = { status: 'done', percent: 100, result: { total: LONG.items.length, uats: LONG.items, failed: [] }, error: undefined };
/** An object that says how it is written: its own `toJSON`, whatever lists it holds. */
const WITH_TOJSON = { items: LONG.items, toJSON: () => ({ summary: `${LONG.items.length} UAT-uri` }) };
/** A value JSON cannot write, in the last slice. */
const UNWRITABLE = { items: [...LONG.items, { siruta: 10n }] };
const SMALL = { items: Array.from({ length: JSON_SLICE_ITEMS }, (_, i) => item(i)) };
/** Items that count how many of them were serialised. */
const COUNTED = Array.from({ length: 400 * JSON_SLICE_ITEMS }, (_, i) => ({ toJSON: () => (serialised++, item(i)) }));

async function answer(res: Response, body: unknown) {
  // Another user's work on the same loop: one step a turn while the answer is being written.
  last = { turns: 0, ended: false };
  const colleague = () => {
    if (res.writableEnded || res.destroyed) return;
    last.turns++;
    setImmediate(colleague);
  };
  setImmediate(colleague);
  await sendJson(res, 200, body);
  last.ended = res.writableEnded;
}

beforeAll(async () => {
  const app = express();
  app.get('/long', (_req, res) => void answer(res, LONG));
  app.get('/nested', (_req, res) => void answer(res, NESTED));
  app.get('/tojson', (_req, res) => void answer(res, WITH_TOJSON));
  app.get('/unwritable', (_req, res) => void answer(res, UNWRITABLE).catch(() => undefined));
  app.get('/small', (_req, res) => void answer(res, SMALL));
  app.get('/list', (_req, res) => void answer(res, LONG.items));
  app.get('/counted', (_req, res) => void answer(res, { items: COUNTED }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('a route answer holding a long list', () => {
  test('is the same text JSON.stringify gives, written in pieces while other work takes its turns', async () => {
    const res = await fetch(`${base}/long`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBeNull();
    expect(await res.text()).toBe(JSON.stringify(LONG));
    // 13 slices: the colleague's work ran between them, not after the whole answer.
    expect(last.ended).toBe(true);
    expect(last.turns).toBeGreaterThanOrEqual(12);
  });

  test('a long list as the whole answer is written the same way', async () => {
    const res = await fetch(`${base}/list`);
    expect(await res.text()).toBe(JSON.stringify(LONG.items));
    expect(last.turns).toBeGreaterThanOrEqual(12);
  });

  test('so is a long list deeper in the answer (a job result\'s UATs)', async () => {
    const res = await fetch(`${base}/nested`);
    expect(await res.text()).toBe(JSON.stringify(NESTED));
    expect(last.turns).toBeGreaterThanOrEqual(12);
  });

  test("an object's own toJSON is honoured as JSON.stringify honours it", async () => {
    const res = await fetch(`${base}/tojson`);
    expect(await res.text()).toBe(JSON.stringify(WITH_TOJSON));
  });

  test('a value JSON cannot write, met after the answer started, cuts the connection: no 200 with JSON cut short', async () => {
    const res = await fetch(`${base}/unwritable`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  test('a small answer is written at once, with its length', async () => {
    const res = await fetch(`${base}/small`);
    const text = await res.text();
    expect(text).toBe(JSON.stringify(SMALL));
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(last.turns).toBe(0);
  });

  test('a client that leaves stops the writing: the rest of the list is never serialised', async () => {
    serialised = 0;
    const gone = new AbortController();
    const res = await fetch(`${base}/counted`, { signal: gone.signal });
    const reader = res.body!.getReader();
    await reader.read();
    gone.abort();
    await new Promise((r) => setTimeout(r, 300));
    expect(last.ended).toBe(false);
    expect(serialised).toBeGreaterThan(0);
    expect(serialised).toBeLessThan(COUNTED.length);
  });
});
