/**
 * What the simulators read from the environment, on their own: they stand for outside systems,
 * so they share no code with the product, only the variable names and defaults of the local
 * stack (.env.example). Ports follow the stack's rule: the default plus the profile's shift
 * (`STACK_PROFILE` test +100, bench +200) or `STACK_PORT_SHIFT`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shift = env.STACK_PORT_SHIFT ? Number(env.STACK_PORT_SHIFT) : env.STACK_PROFILE === 'test' ? 100 : env.STACK_PROFILE === 'bench' ? 200 : 0;

function text(name: string, fallback: string): string {
  const v = env[name];
  return v !== undefined && v !== '' ? v : fallback;
}
function whole(name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number.parseInt(v, 10);
  if (!Number.isFinite(n)) throw new Error(`Environment variable ${name} must be an integer`);
  return n;
}
const port = (name: string, base: number) => whole(name, base + shift);

const oidcPort = port('OIDC_PORT', 4010);
const appPort = port('PORT', 3000);

export const simSettings = {
  logLevel: text('LOG_LEVEL', env.STACK_PROFILE === 'test' || env.STACK_PROFILE === 'bench' ? 'warn' : 'info'),
  /** The generated land-registry data: reference boundaries, seed, scale. */
  landreg: {
    port: port('LANDREG_SIM_PORT', 4020),
    dataDir: path.resolve(repoRoot, text('LANDREG_SIM_DATA_DIR', 'data/reference')),
    seed: whole('LANDREG_SIM_SEED', 42),
    scale: text('LANDREG_SIM_SCALE', 'demo'),
    sessionTtlSeconds: whole('LANDREG_SIM_SESSION_TTL_SECONDS', 600),
    username: text('LANDREG_USERNAME', 'geoportal'),
    password: text('LANDREG_PASSWORD', 'parola-portal'),
  },
  cfportal: {
    port: port('CFPORTAL_SIM_PORT', 4030),
    seed: whole('CFPORTAL_SIM_SEED', 42),
    credits: whole('CFPORTAL_SIM_CREDITS', 50),
    pollsUntilDone: whole('CFPORTAL_SIM_POLLS_UNTIL_DONE', 3),
    sessionTtlSeconds: whole('CFPORTAL_SIM_SESSION_TTL_SECONDS', 600),
    username: text('CFPORTAL_USERNAME', 'geoportal-cf'),
    password: text('CFPORTAL_PASSWORD', 'parola-cf'),
  },
  central: { port: port('CENTRAL_API_SIM_PORT', 4040) },
  statusAuthority: { port: port('STATUS_AUTHORITY_SIM_PORT', 4050), seed: whole('STATUS_AUTHORITY_SIM_SEED', 7) },
  pdfService: {
    port: port('PDF_SERVICE_SIM_PORT', 4060),
    apiKey: text('PDF_SERVICE_API_KEY', 'dev-pdf-service-key'),
    gs: text('GS_BIN', 'gs'),
    qpdf: text('QPDF_BIN', 'qpdf'),
    toolTimeoutMs: whole('PDF_TOOL_TIMEOUT_MS', 10 * 60_000),
  },
  ai: { port: port('AI_SIM_PORT', 4070) },
  /** The development identity provider and the one client it knows (the geoportal). */
  oidc: {
    port: oidcPort,
    issuer: text('OIDC_ISSUER', `http://localhost:${oidcPort}`),
    clientId: text('OIDC_CLIENT_ID', 'geoportal'),
    clientSecret: text('OIDC_CLIENT_SECRET', 'geoportal-dev-secret'),
    accessTokenTtlSeconds: whole('OIDC_ACCESS_TOKEN_TTL', 60),
    /** Where the client's redirect URIs live. */
    clientUrl: text('PUBLIC_URL', `http://localhost:${appPort}`),
  },
};
