/**
 * The Express frame every simulator shares: the app with the /__sim fault and request-counting
 * middleware in front of its routes, and starting it on a port (0 = a free one, for tests).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import cookieParser from 'cookie-parser';
import express, { type Express } from 'express';
import { keepAlive } from './keepAlive';
import type { SimControl } from './control';

export function simulatorApp(control: SimControl): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(control.faultMiddleware());
  app.use(control.routeCounter());
  app.use(cookieParser());
  return app;
}

export async function listenSimulator(app: Express, port: number, host = '127.0.0.1'): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve, reject) => {
    const s = keepAlive(app.listen(port, host, () => resolve(s)));
    s.once('error', reject);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
