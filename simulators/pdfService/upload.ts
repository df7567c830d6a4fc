/**
 * How the simulated PDF service receives a call: one multipart body, its file streamed into a
 * temporary directory of its own, its text fields kept; the directory is gone when the call ends,
 * whatever happened (a client that leaves included).
 */
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';

/** A service of this kind takes files of a few hundred MB. */
const MAX_FILE_BYTES = 600 * 1024 * 1024;

export interface ServiceUpload {
  file?: { path: string; fileName: string; size: number };
  fields: Record<string, string>;
  dir: string;
}

/** A refusal the service answers as `{error, message}` with its status. */
export class ServiceRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function receive(req: Request, dir: string): Promise<ServiceUpload> {
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
    return Promise.reject(new ServiceRefusal(400, 'bad_request', 'Expected a multipart/form-data body'));
  }
  return new Promise((resolve, reject) => {
    const upload: ServiceUpload = { fields: {}, dir };
    const writes: Promise<void>[] = [];
    let done = false;
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      req.unpipe();
      req.resume();
      reject(err);
    };
    req.on('close', () => {
      if (!req.complete) fail(new ServiceRefusal(400, 'aborted', 'The upload was interrupted'));
    });
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { files: 1, fileSize: MAX_FILE_BYTES } });
    } catch (err) {
      return fail(new ServiceRefusal(400, 'bad_request', (err as Error).message));
    }
    bb.on('file', (field, stream, info) => {
      if (field !== 'file') {
        stream.resume();
        return fail(new ServiceRefusal(400, 'bad_request', `Unexpected file field "${field}"`));
      }
      const target = path.join(dir, 'input.pdf');
      let size = 0;
      stream.on('data', (c: Buffer) => (size += c.length));
      stream.on('limit', () => fail(new ServiceRefusal(413, 'too_large', 'The file is too large')));
      writes.push(
        pipeline(stream, createWriteStream(target)).then(() => {
          upload.file = { path: target, fileName: info.filename ?? 'file.pdf', size };
        }, fail),
      );
    });
    bb.on('field', (name, value) => (upload.fields[name] = value));
    bb.on('error', (err: Error) => fail(new ServiceRefusal(400, 'bad_request', err.message)));
    bb.on('close', () => {
      Promise.all(writes).then(() => {
        if (done) return;
        done = true;
        resolve(upload);
      }, fail);
    });
    req.pipe(bb);
  });
}

/** Receives the call's upload, runs `work` with it, removes the directory afterwards. */
export async function withServiceUpload(req: Request, tmpDir: string, work: (upload: ServiceUpload) => Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(path.join(tmpDir || os.tmpdir(), 'pdf-service-'));
  try {
    await work(await receive(req, dir));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
