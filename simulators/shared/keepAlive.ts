import type { Server } from 'node:http';

/**
 * Idle keep-alive sockets stay open longer than any client keeps them for reuse (undici: a few
 * seconds), so a request never lands on a socket the simulator is closing (ECONNRESET).
 */
export function keepAlive(server: Server): Server {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
