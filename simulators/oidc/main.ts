/**
 * CLI of the development identity provider: `npx tsx simulators/oidc/main.ts`.
 * Port and issuer from OIDC_PORT and OIDC_ISSUER (simulators/shared/settings.ts); access-token lifetime from
 * OIDC_ACCESS_TOKEN_TTL (seconds, default 60).
 */
import pino from 'pino';
import { simSettings } from '../shared/settings';
import { startOidcProvider } from './provider';
import { SIM_USERS } from './users';

const log = pino({ name: 'oidc-sim', level: simSettings.logLevel });

const sim = await startOidcProvider({ port: simSettings.oidc.port, issuer: simSettings.oidc.issuer });
log.info({ issuer: sim.issuer, users: SIM_USERS.map((u) => u.email) }, 'identity provider ready');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sim.close().then(() => process.exit(0));
  });
}
