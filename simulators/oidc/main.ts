/**
 * CLI of the development identity provider: `npx tsx simulators/oidc/main.ts`.
 * Port and issuer from config (OIDC_PORT, OIDC_ISSUER); access-token lifetime from
 * OIDC_ACCESS_TOKEN_TTL (seconds, default 60).
 */
import { config } from '../../domain/config';
import { childLogger } from '../../domain/log';
import { startOidcProvider } from './provider';
import { SIM_USERS } from './users';

const log = childLogger('oidc-sim');

const sim = await startOidcProvider({ port: config.oidc.port, issuer: config.oidc.issuer });
log.info({ issuer: sim.issuer, users: SIM_USERS.map((u) => u.email) }, 'identity provider ready');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sim.close().then(() => process.exit(0));
  });
}
