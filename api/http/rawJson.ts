/**
 * Body fields a route takes as JSON text (`defineRoute` `rawJson`): a large body's such field is
 * parsed and checked in a worker thread and reaches the handler as its compact JSON text, never
 * as a structure the event loop must rebuild or serialise again (a million values cost a second
 * each way). Small bodies, parsed on the loop, keep their values; `jsonUtf8` reads either.
 */

/** A field's compact JSON text in UTF-8, checked (depth, size, no NUL) by the worker. No enumerable keys: walks skip it. */
export class RawJson {
  readonly #utf8: Buffer;
  constructor(utf8: Buffer) {
    this.#utf8 = utf8;
  }
  get utf8(): Buffer {
    return this.#utf8;
  }
}

/**
 * A body field's value as compact JSON text in UTF-8 (its length is the value's size), whichever
 * way the body was parsed: what PostgreSQL is sent as a binary `text` parameter, not re-encoded.
 */
export function jsonUtf8(value: unknown): Buffer {
  return value instanceof RawJson ? value.utf8 : Buffer.from(JSON.stringify(value), 'utf8');
}

const rawFields = new Map<string, readonly string[]>();

/** Called by defineRoute: `path` is the route's full path (a path without parameters). */
export function declareRawFields(method: string, path: string, fields: readonly string[]): void {
  if (path.includes(':')) throw new Error(`rawJson is for routes without path parameters (${path})`);
  rawFields.set(`${method.toUpperCase()} ${path}`, fields);
}

/** The raw fields of the route a request addresses (none for most). */
export function rawFieldsOf(method: string, path: string): readonly string[] {
  return rawFields.get(`${method.toUpperCase()} ${path}`) ?? [];
}
