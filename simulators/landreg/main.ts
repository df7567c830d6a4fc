/** CLI: `npx tsx simulators/landreg/main.ts` starts the land-registry portal simulator. */
import pino from 'pino';
import { simSettings } from '../shared/settings';
import { startLandregSimulator } from './server';

const log = pino({ name: 'landreg-sim', level: simSettings.logLevel });

const sim = await startLandregSimulator({
  port: simSettings.landreg.port,
  seed: simSettings.landreg.seed,
  scale: simSettings.landreg.scale,
});
const { seed, scale, store } = sim.state();
log.info({ url: sim.url, seed, scale, dataUats: store.dataUats().length }, `land-registry simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
