/** CLI: `npx tsx simulators/cfportal/main.ts` starts the certificate portal simulator. */
import pino from 'pino';
import { config } from '../../domain/config';
import { startCfportalSimulator } from './server';

const log = pino({ name: 'cfportal-sim', level: config.logLevel });

const sim = await startCfportalSimulator({ port: config.cfportal.simPort });
log.info({ url: sim.url }, `certificate portal simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
