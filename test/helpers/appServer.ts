/**
 * An app on a free loopback port, as a test's HTTP client reaches it: the one way tests start
 * the API (close it in afterAll with `server.close`). The caller builds the app, so a test that
 * sets its environment before importing api/app keeps that order.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export async function listenApp(app: Express): Promise<{ server: Server; base: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
