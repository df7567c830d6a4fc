/**
 * Body fields a route takes as JSON text (`defineRoute` `rawJson`): a large body's such field is
 * parsed and checked in a worker thread and reaches the handler as its compact JSON text, never
 * as a structure the event loop must rebuild or serialise again (a million values cost a second
 * each way). Small bodies, parsed on the loop, keep their values; `jsonText` reads either.
 */

/** A field's JSON text, checked (depth, size, no NUL) by the worker. No enumerable keys: walks skip it. */
export class RawJson {
  readonly #text: string;
  readonly #bytes: number;
  constructor(text: string, bytes: number) {
    this.#text = text;
    this.#bytes = bytes;
  }
  get text(): string {
    return this.#text;
  }
  /** UTF-8 size of the text. */
  get bytes(): number {
    return this.#bytes;
  }
}

/** A body field's value as compact JSON text and its UTF-8 size, whichever way the body was parsed. */
export function jsonText(value: unknown): { text: string; bytes: number } {
  if (value instanceof RawJson) return { text: value.text, bytes: value.bytes };
  const text = JSON.stringify(value);
  return { text, bytes: Buffer.byteLength(text, 'utf8') };
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
