/** CLI: `npx tsx simulators/cfportal/main.ts` starts the certificate portal simulator. */
import pino from 'pino';
import { simSettings } from '../shared/settings';
import { startCfportalSimulator } from './server';

const log = pino({ name: 'cfportal-sim', level: simSettings.logLevel });

const sim = await startCfportalSimulator({ port: simSettings.cfportal.port });
log.info({ url: sim.url }, `certificate portal simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
