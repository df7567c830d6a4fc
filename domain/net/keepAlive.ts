import type { Server } from 'node:http';

/**
 * Node's HTTP server closes idle keep-alive sockets after 5 s, while fetch (undici) keeps them
 * for reuse a little longer: a request sent on a socket the server is closing fails with
 * ECONNRESET. A server timeout longer than any client's idle time removes that race.
 */
export function applyKeepAlive(server: Server): Server {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
