/** Entry point of the web process: API, tiles, sign-in and the Remix UI on one port. */
import { createApp } from './app';
import { pageGuard } from './auth';
import { createWebHandlers } from './web';
import { config } from '../domain/config';
import { logger } from '../domain/log';

const app = createApp({ web: [pageGuard, ...(await createWebHandlers())] });
const server = app.listen(config.app.port, () => {
  logger.info({ url: config.app.publicUrl }, 'geoportal listening');
});

function stop(): void {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
