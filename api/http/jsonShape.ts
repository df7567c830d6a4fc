/**
 * The JSON body checks (CONTRACT.md 5; docs/architecture.md "Nothing heavy on the event loop"),
 * pure, and the worker thread that runs them on large bodies off the event loop. This module
 * imports nothing but Node's own so a worker thread can load it on its own (Node strips the
 * types): api/http/route.ts turns its failures into the contract's 400, api/http/jsonBody.ts
 * starts the workers.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

/** CONTRACT.md: a JSON body nested deeper than this is a 400 (every walk of it stays shallow). */
export const MAX_JSON_DEPTH = 64;
/** Values (objects, arrays, scalars) one JSON body may hold; a 25 MB body of tiny values is refused. */
export const MAX_JSON_NODES = 1_000_000;
/**
 * Values of a large body the event loop may receive as structure: everything but a route's raw
 * fields (below). Rebuilding a million values on the loop took a second (JSON.parse of the
 * worker's text 265 ms, a structured clone 800 ms); 50,000 take about 15 ms.
 */
export const MAX_LOOP_NODES = 50_000;
/** NUL paths reported at most (the walk goes on only to find whether there are any). */
const MAX_NUL_PATHS = 20;

/** A refused body: the 400's message and details, as data (it crosses the worker boundary). */
export class JsonShapeError extends Error {
  readonly details: Array<{ field: string; problem: string }>;
  constructor(message: string, details: Array<{ field: string; problem: string }>) {
    super(message);
    this.details = details;
  }
}

/** A container (object or array) met by the walk; scalars never get one. */
interface Visit {
  value: object;
  key: string | number;
  parent: Visit | null;
  depth: number;
}

function pathOf(v: Visit | null, last?: string | number): string {
  const keys: Array<string | number> = last === undefined ? [] : [last];
  for (let at = v; at && at.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.') || '(body)';
}

const tooMany = (max: number) =>
  new JsonShapeError(`Corpul cererii are prea multe valori (cel mult ${max}).`, [{ field: '(body)', problem: `more than ${max} JSON values` }]);

const tooDeep = (field: string) =>
  new JsonShapeError(`Corpul cererii este imbricat prea adânc (cel mult ${MAX_JSON_DEPTH} de niveluri).`, [
    { field, problem: `nested deeper than ${MAX_JSON_DEPTH} levels` },
  ]);

/**
 * The raw body's nesting and size, checked byte by byte before JSON.parse sees it: V8 parsed
 * 13.5 MB of nested brackets in 2.8 s before any walk of the result could refuse it. Stops at the
 * 65th open bracket; a comma counts a value (a body holds more values than commas).
 */
export function scanJsonShape(buf: Uint8Array): void {
  let depth = 0;
  let commas = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next byte is escaped, even a quote
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw tooDeep('(body)');
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && ++commas >= MAX_JSON_NODES) throw tooMany(MAX_JSON_NODES);
  }
}

/**
 * One iterative walk of a parsed JSON value (no recursion: no stack to overflow; linear in its
 * size, and a container's size is counted before its values are looked at): refuses a value
 * deeper than MAX_JSON_DEPTH or with more than `maxNodes` values, and returns the paths of the
 * strings holding a NUL character (PostgreSQL text and jsonb cannot store one). `at` names the
 * value's place when it is a field of the body.
 */
export function walkJson(value: unknown, maxNodes = MAX_JSON_NODES, at?: string): string[] {
  const out: string[] = [];
  if (typeof value === 'string') return value.includes('\u0000') ? [at ?? '(body)'] : out;
  if (!value || typeof value !== 'object') return out;
  const root: Visit = { value: {}, key: '', parent: null, depth: -1 };
  const stack: Visit[] = [at === undefined ? { value, key: '', parent: null, depth: 0 } : { value, key: at, parent: root, depth: 1 }];
  let nodes = 1;
  const child = (x: unknown, key: string | number, parent: Visit) => {
    if (typeof x === 'string') {
      if (out.length < MAX_NUL_PATHS && x.includes('\u0000')) out.push(pathOf(parent, key));
    } else if (x && typeof x === 'object') {
      stack.push({ value: x, key, parent, depth: parent.depth + 1 });
    }
  };
  while (stack.length) {
    const v = stack.pop()!;
    if (v.depth >= MAX_JSON_DEPTH) throw tooDeep(pathOf(v));
    if (Array.isArray(v.value)) {
      const items = v.value as unknown[];
      if ((nodes += items.length) > maxNodes) throw tooMany(maxNodes);
      for (let i = items.length - 1; i >= 0; i--) child(items[i], i, v);
    } else {
      const keys = Object.keys(v.value);
      if ((nodes += keys.length) > maxNodes) throw tooMany(maxNodes);
      const obj = v.value as Record<string, unknown>;
      for (let i = keys.length - 1; i >= 0; i--) child(obj[keys[i]], keys[i], v);
    }
  }
  return out;
}

/** What the worker is asked: a body's bytes and the top-level fields its route takes as raw JSON text. */
export interface ParseJob {
  id: number;
  body: Uint8Array;
  rawFields: readonly string[];
}

/**
 * What it answers. `rest`: the body without its raw fields, as JSON text (rebuilt on the loop,
 * at most MAX_LOOP_NODES values); `raw`: each raw field present, as its compact JSON text in
 * UTF-8, in memory of its own that moves to the loop's thread without a copy (a 24 MB string
 * sent back took the loop 0.1 s or more to receive, and as much again to encode for PostgreSQL).
 * Or the refusal: not JSON, or a JsonShapeError's message and details.
 */
export type ParseResult =
  | { id: number; ok: true; rest: string; raw: Record<string, Uint8Array>; nul: string[] }
  | { id: number; ok: false; kind: 'syntax' | 'shape'; message: string; details: Array<{ field: string; problem: string }> };

/** The worker's whole job, also callable in process (the unit tests run it there). */
export function parseOffLoop(job: ParseJob): ParseResult {
  const { id } = job;
  try {
    scanJsonShape(job.body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).toString('utf8'));
    } catch (err) {
      return { id, ok: false, kind: 'syntax', message: (err as Error).message, details: [] };
    }
    const raw: Record<string, Uint8Array> = {};
    const nul: string[] = [];
    let rest = parsed;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && job.rawFields.length) {
      const obj = { ...(parsed as Record<string, unknown>) };
      for (const field of job.rawFields) {
        if (!Object.hasOwn(obj, field) || obj[field] === undefined) continue;
        nul.push(...walkJson(obj[field], MAX_JSON_NODES, field));
        const text = JSON.stringify(obj[field]);
        const utf8 = new Uint8Array(Buffer.byteLength(text, 'utf8'));
        Buffer.from(utf8.buffer).write(text, 'utf8');
        raw[field] = utf8;
        delete obj[field];
      }
      rest = obj;
    }
    // The loop rebuilds `rest`, so it is held to what the loop can rebuild quickly.
    nul.push(...walkJson(rest, MAX_LOOP_NODES));
    return { id, ok: true, rest: JSON.stringify(rest), raw, nul };
  } catch (err) {
    if (err instanceof JsonShapeError) return { id, ok: false, kind: 'shape', message: err.message, details: err.details };
    throw err;
  }
}

/** Marks the thread started by api/http/jsonBody.ts. */
export const WORKER_ROLE = 'json-body-parser';

if (!isMainThread && (workerData as { role?: string } | null)?.role === WORKER_ROLE) {
  parentPort!.on('message', (job: ParseJob) => {
    const result = parseOffLoop(job);
    parentPort!.postMessage(result, result.ok ? Object.values(result.raw).map((u) => u.buffer as ArrayBuffer) : []);
  });
}
