/**
 * An app on a free loopback port, as a test's HTTP client reaches it: the one way tests start
 * the API (close it in afterAll with `server.close`). The caller builds the app, so a test that
 * sets its environment before importing api/app keeps that order. The server keeps idle
 * sockets as api/server.ts does (domain/net/keepAlive.ts): with Node's 5 s default, fetch could
 * send a request on a socket the server was closing, or a large body refused early could still
 * be arriving when the server's idle timer ran out on a loaded machine (ECONNRESET in CI).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { applyKeepAlive } from '../../domain/net/keepAlive';

/** `port`: a fixed one where a redirect names the app's address (sign-in tests); by default a free one. */
export async function listenApp(app: Express, port = 0): Promise<{ server: Server; base: string }> {
  const server = applyKeepAlive(app.listen(port, '127.0.0.1'));
  // A test ends its server with close(): its sockets go with it, or a kept one (a download the
  // test left unread, a request it abandoned) would hold close() for the keep-alive's 65 s.
  const close = server.close.bind(server);
  server.close = ((done?: (err?: Error) => void) => {
    close(done);
    server.closeAllConnections();
    return server;
  }) as Server['close'];
  await new Promise((r) => server.once('listening', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface JsonCall {
  body?: unknown;
  cookie?: string;
  bearer?: string;
  /** The page's Origin, as the UI's mutating calls carry it. */
  origin?: string;
}

/**
 * One call as the UI (a session cookie) or a token client makes it, the answer's body parsed
 * (null when empty or not JSON): the one JSON client of the integration tests.
 */
export async function callJson(base: string, method: string, path: string, o: JsonCall = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = {};
  if (o.cookie) headers.cookie = o.cookie;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  if (o.origin) headers.origin = o.origin;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: parseOrNull(text) };
}

function parseOrNull(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
