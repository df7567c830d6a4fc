/** CLI: `npx tsx simulators/statusAuthority/main.ts` starts the municipal status authority simulator. */
import pino from 'pino';
import { simSettings } from '../shared/settings';
import { startStatusAuthoritySimulator } from './server';

const log = pino({ name: 'status-authority-sim', level: simSettings.logLevel });
const sim = await startStatusAuthoritySimulator({ port: simSettings.statusAuthority.port, seed: simSettings.statusAuthority.seed });
log.info({ url: sim.url }, `status authority simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
