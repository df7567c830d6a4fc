/**
 * Spec 5.8 / issues 13, 25 and 40: a production start (any NODE_ENV but development and test,
 * unset included) refuses missing,
 * development-default or (our own) short secrets and an unnamed identity provider, naming them.
 */
import { expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { MIN_SECRET_LENGTH, assertProductionSecrets, isProductionEnv, productionSecretProblems as problemsOf } from '../../domain/config';

const asEnv = (env: Record<string, string | undefined>) => env as unknown as NodeJS.ProcessEnv;
const productionSecretProblems = (env: Record<string, string>) => problemsOf(asEnv(env));

const STRONG: Record<string, string> = {
  SESSION_SECRET: 'k8Jw1q9vXr2mZp7LbT4nYc6HsD0fGa3E',
  ENCRYPTION_SECRET: 'Qe5Rt7Yu9Io1Pa3Sd5Fg7Hj9Kl1Zx3Cv',
  CRON_SECRET: 'Mn2Bv4Cx6Zl8Kj0Hg2Fd4Sa6Po8Iu0Yt',
  TILE_REBUILD_WEBHOOK_TOKEN: 'Re4Wq6Ty8Ui0Op2As4Df6Gh8Jk0Lz2Xc',
  OIDC_CLIENT_SECRET: 'Vb3Nm5Qw7Er9Ty1Ui3Op5As7Df9Gh1Jk',
  ADDRESSBOOK_API_KEY: 'Lz1Xc3Vb5Nm7Qw9Er1Ty3Ui5Op7As9Df',
  S3_SECRET_KEY: 'Gh2Jk4Lz6Xc8Vb0Nm2Qw4Er6Ty8Ui0Op',
  LANDREG_PASSWORD: 'As1Df3Gh5Jk7Lz9Xc1Vb3Nm5Qw7Er9Ty',
  PGPASSWORD: 'Ui2Op4As6Df8Gh0Jk2Lz4Xc6Vb8Nm0Qw',
  OIDC_ISSUER: 'https://login.birou.ro',
};

it('strong values pass; each default, dev-* or missing value is named', () => {
  expect(productionSecretProblems({ ...STRONG })).toEqual([]);
  expect(productionSecretProblems({ ...STRONG, CRON_SECRET: 'dev-cron-secret' })).toEqual(['CRON_SECRET']);
  expect(productionSecretProblems({ ...STRONG, SESSION_SECRET: 'dev-anything' })).toEqual(['SESSION_SECRET']);
  const { ENCRYPTION_SECRET: _e, ...missing } = STRONG;
  expect(productionSecretProblems(missing)).toEqual(['ENCRYPTION_SECRET']);
  expect(productionSecretProblems({ ...STRONG, S3_SECRET_KEY: 'geoportal-secret' })).toEqual(['S3_SECRET_KEY']);
  // DATABASE_URL's password stands for PGPASSWORD.
  const { PGPASSWORD: _p, ...noPg } = STRONG;
  expect(productionSecretProblems({ ...noPg, DATABASE_URL: 'postgresql://geoportal:geoportal@db/geoportal' })).toEqual(['PGPASSWORD']);
  expect(productionSecretProblems({ ...noPg, DATABASE_URL: `postgresql://geoportal:${STRONG.PGPASSWORD}@db/geoportal` })).toEqual([]);
});

it("an outside service's secret is required once its URL points at a real system", () => {
  expect(productionSecretProblems({ ...STRONG })).toEqual([]);
  expect(productionSecretProblems({ ...STRONG, PDF_SERVICE_URL: 'https://pdf.example.ro' })).toEqual(['PDF_SERVICE_API_KEY']);
  expect(productionSecretProblems({ ...STRONG, PDF_SERVICE_URL: 'https://pdf.example.ro', PDF_SERVICE_API_KEY: 'dev-pdf-service-key' })).toEqual(['PDF_SERVICE_API_KEY']);
  expect(productionSecretProblems({ ...STRONG, CFPORTAL_BASE_URL: 'https://cf.example.ro', CFPORTAL_PASSWORD: 'parola-cf' })).toEqual(['CFPORTAL_PASSWORD']);
  expect(productionSecretProblems({ ...STRONG, CFPORTAL_BASE_URL: 'https://cf.example.ro', CFPORTAL_PASSWORD: 'Zx8Cv6Bn4Mq2Wr0Ty8Ui6Op4' })).toEqual([]);
});

it('NODE_ENV=production and an unset NODE_ENV refuse; development and test do not', () => {
  const weak = { ...STRONG, TILE_REBUILD_WEBHOOK_TOKEN: 'dev-tile-rebuild-token' };
  expect(() => assertProductionSecrets({ NODE_ENV: 'development' } as NodeJS.ProcessEnv)).not.toThrow();
  expect(() => assertProductionSecrets({ NODE_ENV: 'test' } as NodeJS.ProcessEnv)).not.toThrow();
  expect(() => assertProductionSecrets({ NODE_ENV: 'production', ...weak } as NodeJS.ProcessEnv)).toThrow(/TILE_REBUILD_WEBHOOK_TOKEN/);
  expect(() => assertProductionSecrets(asEnv({ ...weak }))).toThrow(/NODE_ENV unset \(production\).*TILE_REBUILD_WEBHOOK_TOKEN/);
  expect(() => assertProductionSecrets(asEnv({ NODE_ENV: '', ...weak }))).toThrow(/TILE_REBUILD_WEBHOOK_TOKEN/);
  expect(() => assertProductionSecrets({ ...STRONG } as NodeJS.ProcessEnv)).not.toThrow();
  expect(isProductionEnv(asEnv({}))).toBe(true);
  expect(isProductionEnv({ NODE_ENV: 'development' } as NodeJS.ProcessEnv)).toBe(false);
});

it.each(['staging', 'prod', 'Production', 'preview', ' production '])('NODE_ENV=%s runs the production check too', (nodeEnv) => {
  const weak = { ...STRONG, CRON_SECRET: 'dev-cron-secret' };
  expect(isProductionEnv(asEnv({ NODE_ENV: nodeEnv }))).toBe(true);
  expect(() => assertProductionSecrets(asEnv({ NODE_ENV: nodeEnv, ...weak }))).toThrow(/CRON_SECRET/);
  expect(() => assertProductionSecrets(asEnv({ NODE_ENV: nodeEnv, ...STRONG }))).not.toThrow();
});

it('our own secrets shorter than 32 characters are refused; credentials issued by other systems are not measured', () => {
  const short = 'Qe5Rt7Yu9Io1Pa3Sd5Fg7Hj9Kl1Zx3C'; // 31 characters, no development shape
  expect(short).toHaveLength(MIN_SECRET_LENGTH - 1);
  for (const name of ['SESSION_SECRET', 'ENCRYPTION_SECRET', 'CRON_SECRET', 'ADDRESSBOOK_API_KEY', 'TILE_REBUILD_WEBHOOK_TOKEN', 'S3_SECRET_KEY', 'PGPASSWORD']) {
    expect(productionSecretProblems({ ...STRONG, [name]: short })).toEqual([name]);
    expect(productionSecretProblems({ ...STRONG, [name]: `${short}x` })).toEqual([]);
  }
  const { PGPASSWORD: _p, ...noPg } = STRONG;
  expect(productionSecretProblems({ ...noPg, DATABASE_URL: `postgresql://geoportal:${short}@db/geoportal` })).toEqual(['PGPASSWORD']);
  // The office's portal password and the identity provider's client secret follow their issuer's rules.
  expect(productionSecretProblems({ ...STRONG, LANDREG_PASSWORD: 'Portal#2026', OIDC_CLIENT_SECRET: 'Kq2Wv9Lr' })).toEqual([]);
});

it('the identity provider has no production default', () => {
  const { OIDC_ISSUER: _i, ...noIssuer } = STRONG;
  expect(productionSecretProblems(noIssuer)).toEqual(['OIDC_ISSUER']);
  expect(productionSecretProblems({ ...noIssuer, OIDC_ISSUER: ' ' })).toEqual(['OIDC_ISSUER']);
});

it('the web process started with NODE_ENV=production and a default secret exits 1, naming the variable', () => {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', ...STRONG, CRON_SECRET: 'dev-cron-secret', PORT: '1' } as NodeJS.ProcessEnv;
  const r = spawnSync('node_modules/.bin/tsx', ['api/server.ts'], { env, encoding: 'utf8', timeout: 60_000 });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('CRON_SECRET');
  expect(r.stderr).toContain('NODE_ENV=production');
  expect(r.stderr).not.toContain(STRONG.SESSION_SECRET);
});

it('the web process started without NODE_ENV and development defaults exits 1 (an unset NODE_ENV is production)', () => {
  const env = asEnv({ PATH: process.env.PATH, HOME: process.env.HOME, PORT: '1' });
  const r = spawnSync('node_modules/.bin/tsx', ['api/server.ts'], { env, encoding: 'utf8', timeout: 60_000 });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('NODE_ENV unset (production)');
  expect(r.stderr).toContain('SESSION_SECRET');
  expect(r.stderr).toContain('OIDC_ISSUER');
});

it('the web process started with NODE_ENV=staging and the development defaults exits 1, naming the variables but never their values', () => {
  // Weak values given outright, so the test can look for each one in the output.
  const weak = { SESSION_SECRET: 'dev-session-secret-staging', CRON_SECRET: 'change-me-cron-staging', ENCRYPTION_SECRET: 'short-staging' };
  const env = asEnv({ PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'staging', PORT: '1', ...weak });
  const r = spawnSync('node_modules/.bin/tsx', ['api/server.ts'], { env, encoding: 'utf8', timeout: 60_000 });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('NODE_ENV=staging');
  for (const name of ['SESSION_SECRET', 'CRON_SECRET', 'ENCRYPTION_SECRET', 'OIDC_ISSUER', 'TILE_REBUILD_WEBHOOK_TOKEN']) expect(r.stderr).toContain(name);
  for (const value of Object.values(weak)) expect(r.stdout + r.stderr).not.toContain(value);
});
