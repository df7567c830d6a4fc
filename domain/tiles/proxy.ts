/**
 * TILE_SERVER_URL mode: the same /tiles routes forward to an external tile server (Martin URL
 * shapes: `<url>/<source>` TileJSON, `<url>/<source>/<z>/<x>/<y>` tiles). The answer streams back
 * with its status and the headers a cache or a map library needs. Only the tile server's own
 * headers travel; the user's cookies never leave the service.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { config } from '../config';
import { errors } from '../errors';

/** Response headers worth passing on (hop-by-hop and cookie headers are not). */
const PASSED_RESPONSE_HEADERS = [
  'content-type',
  'content-encoding',
  'content-length',
  'etag',
  'last-modified',
  'cache-control',
  'expires',
  'vary',
];
/** Request headers the upstream may use for revalidation. */
const PASSED_REQUEST_HEADERS = ['if-none-match', 'if-modified-since', 'accept'];

const UPSTREAM_TIMEOUT_MS = 30_000;

export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Readable | null;
}

export function proxyEnabled(): boolean {
  return config.tiles.serverUrl !== '';
}

export async function proxyTileServer(path: string, requestHeaders: Record<string, string | string[] | undefined>): Promise<ProxiedAnswer> {
  const url = `${config.tiles.serverUrl}/${path}`;
  const headers: Record<string, string> = {};
  for (const h of PASSED_REQUEST_HEADERS) {
    const v = requestHeaders[h];
    if (typeof v === 'string') headers[h] = v;
  }
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS), redirect: 'follow' });
  } catch (err) {
    throw errors.upstream('Serverul de tile-uri nu răspunde.', (err as Error).message);
  }
  if (res.status >= 500) {
    await res.body?.cancel();
    throw errors.upstream('Serverul de tile-uri a răspuns cu o eroare.', `HTTP ${res.status} de la ${url}`);
  }
  const out: Record<string, string> = {};
  for (const h of PASSED_RESPONSE_HEADERS) {
    const v = res.headers.get(h);
    if (v !== null) out[h] = v;
  }
  // fetch decodes a compressed body itself: the upstream's length and encoding no longer describe
  // the bytes we stream (Express' compression, if any, encodes again).
  if (out['content-encoding']) {
    delete out['content-encoding'];
    delete out['content-length'];
  }
  return { status: res.status, headers: out, body: res.body ? Readable.fromWeb(res.body as WebReadableStream<Uint8Array>) : null };
}
