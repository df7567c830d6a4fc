/** CLI: `npx tsx simulators/pdfService/main.ts` starts the cloud PDF service simulator. */
import pino from 'pino';
import { simSettings } from '../shared/settings';
import { startPdfServiceSimulator } from './server';

const log = pino({ name: 'pdf-service-sim', level: simSettings.logLevel });

const sim = await startPdfServiceSimulator({ port: simSettings.pdfService.port });
log.info({ url: sim.url }, `PDF service simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
