/**
 * CLI: `npx tsx simulators/central/main.ts` starts the central GIS API simulator on
 * CENTRAL_API_SIM_PORT, verifying tokens of the identity provider at OIDC_ISSUER. It indexes the
 * landreg simulator's data (same seed and scale) before it listens, so its first answer is fast.
 */
import pino from 'pino';
import { simSettings } from '../shared/settings';
import { startCentralSimulator } from './server';

const log = pino({ name: 'central-sim', level: simSettings.logLevel });

const sim = await startCentralSimulator({ port: simSettings.central.port, issuer: simSettings.oidc.issuer });
log.info({ url: sim.url, issuer: simSettings.oidc.issuer }, `central API simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
