/**
 * A route's JSON answer (defineRoute's one writer of a result). Most answers are small and go out
 * through `res.json`. One that holds a long list (`sync-status` or `db-summary` of a national
 * store: 25,000 items, 13 MB, 70–170 ms of one `JSON.stringify` on this machine) is written a
 * slice of the list at a time, with the event loop free between slices, so a colleague's tiles
 * and clicks are answered meanwhile. It waits for a slow client's socket to drain rather than
 * holding the whole body, and stops when the client leaves.
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { Response } from 'express';
import { isClosed } from './download';

/** Items a list is serialised in at a time: about 2 ms of `JSON.stringify` each for sync-status items. */
export const JSON_SLICE_ITEMS = 500;

/** Bytes gathered before one socket write. */
const WRITE_BYTES = 64 * 1024;

/** An object JSON.stringify writes key by key (one with its own `toJSON` it does not). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** How deep in plain objects a long list is looked for (a job's `result.uats` is at 2). */
const MAX_DEPTH = 4;

/** Whether the value is, or holds in its plain objects, a list longer than one slice. */
export function holdsLongList(value: unknown, depth = 0): boolean {
  if (Array.isArray(value)) return value.length > JSON_SLICE_ITEMS;
  return depth < MAX_DEPTH && isPlainObject(value) && Object.values(value).some((v) => holdsLongList(v, depth + 1));
}

const SLICE_END = Symbol('slice end');

/**
 * The JSON text of `value` in pieces, exactly what `JSON.stringify(value)` gives; a long list's
 * items one slice per piece, each followed by SLICE_END (where the writer yields the loop).
 */
function* pieces(value: unknown, depth = 0): Generator<string | typeof SLICE_END> {
  if (Array.isArray(value) && value.length > JSON_SLICE_ITEMS) {
    yield '[';
    for (let i = 0; i < value.length; i += JSON_SLICE_ITEMS) {
      const text = JSON.stringify(value.slice(i, i + JSON_SLICE_ITEMS));
      yield (i === 0 ? '' : ',') + text.slice(1, -1);
      yield SLICE_END;
    }
    yield ']';
    return;
  }
  if (isPlainObject(value) && holdsLongList(value, depth)) {
    yield '{';
    let first = true;
    for (const [key, v] of Object.entries(value)) {
      // What JSON.stringify leaves out of an object.
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* pieces(v, depth + 1);
    }
    yield '}';
    return;
  }
  yield JSON.stringify(value);
}

/**
 * Resolves when a written-full socket takes more, or when the client has left: a departed client
 * sends neither `drain` nor `error`, so a wait for `drain` alone would never end (and would keep
 * whatever the writer holds).
 */
export function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    if (isClosed(res)) {
      resolve();
      return;
    }
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes `body` as the answer: at once when it is small, a slice at a time when it holds a long list. */
export async function sendJson(res: Response, status: number, body: unknown): Promise<void> {
  if (!holdsLongList(body)) {
    res.status(status).json(body);
    return;
  }
  res.status(status);
  if (!res.get('Content-Type')) res.type('application/json');
  let pending = '';
  try {
    for (const piece of pieces(body)) {
      if (res.destroyed) return;
      if (piece !== SLICE_END) {
        pending += piece;
        continue;
      }
      if (pending.length >= WRITE_BYTES) {
        const flowing = res.write(pending);
        pending = '';
        if (!flowing) await drainedOrClosed(res);
      }
      await turn();
    }
  } catch (err) {
    // A value JSON cannot write, met after the start of the answer was sent: the connection is
    // cut, so the client sees a failed answer (not a 200 with JSON cut short), counted as a 500.
    if (res.headersSent) {
      res.statusCode = 500;
      res.destroy();
    }
    throw err;
  }
  if (!res.destroyed) res.end(pending);
}
