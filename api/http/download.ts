/**
 * The one way a route answers a file download: length, the RFC 6266 attachment name
 * (contentDisposition.ts), never cached, never sniffed; the body is streamed and awaited, so a
 * caller inside withUpload keeps its temp files until the last byte left.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { contentDisposition } from './contentDisposition';
import { errors } from '../../domain/errors';

export async function sendAttachment(
  res: Response,
  body: Readable,
  file: { contentType: string; fileName: string; size: number; headers?: Record<string, string> },
): Promise<void> {
  res.status(200).set({
    'Content-Type': file.contentType,
    'Content-Length': String(file.size),
    'Content-Disposition': contentDisposition(file.fileName),
    ...file.headers,
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  await pipeline(body, res);
}

/** A request or a response: its connection can be over before anyone listens for its `close`. */
interface Closable {
  readonly closed: boolean;
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/** Is its connection over (the answer finished and closed, or the client gone)? */
export function isClosed(s: Closable): boolean {
  return s.closed || s.destroyed;
}

/**
 * Runs `fn` once the request or response is closed (answered, or the client gone), at once when
 * it already is: a client may leave while a request waits for its session or a slot, and a
 * `close` listener added after that would never run (a slot never given back, a wait that never
 * ends, a body read for ever).
 */
export function onClose(s: Closable, fn: () => void): void {
  if (isClosed(s)) fn();
  else s.once('close', fn);
}

/**
 * Aborts when the client goes away before the answer is complete: the one way a route stops work
 * (a service call, a stream, a build and its child processes) nobody will receive. Already
 * aborted when the client left before it was asked for.
 */
export function clientGone(res: Response): AbortSignal {
  const ac = new AbortController();
  onClose(res, () => {
    // The reason is the 499 itself: work that rejects with it (a slot's queue, a fetch, a child
    // process's AbortError as its cause) is the client's leaving, never a 500 in the error log.
    if (!res.writableFinished) ac.abort(errors.clientClosed());
  });
  return ac.signal;
}
