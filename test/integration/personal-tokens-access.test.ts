/**
 * Personal access tokens, the administrator's and the desktop clients' side (issue 40, CONTRACT.md
 * section 6): an administrator lists every user's tokens (with their owner) and revokes any; the
 * cap of 20 live tokens holds under parallel creates; a token is accepted as HTTP Basic (as the
 * password, or as the user name with an empty password) on /ogc and /tiles as the bearer form is;
 * wrong tokens are throttled per client address on /tiles exactly as on /ogc (one counter), the
 * address taken from X-Forwarded-For of a trusted proxy, and a valid token is never refused at
 * an address that is being throttled. GDAL's own OAPIF driver reads /ogc with Basic credentials.
 * In-process apps on the real database: each test that counts builds its own app, so its rate
 * counters are its own; the QGIS access page is read from the running stack (same database).
 */
import type { Server } from 'node:http';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const { createTestSessionRecord } = await import('../helpers/session');
const { callJson, listenApp } = await import('../helpers/appServer');
const { closePool, getPool } = await import('../../domain/db/pool');
const { config, trustProxySetting } = await import('../../domain/config');
const { MAX_TOKENS_PER_USER } = await import('../../domain/auth/rules');
const { E2E_BASE_URL } = await import('../helpers/e2e');

type Session = Awaited<ReturnType<typeof createTestSessionRecord>>;
const run = promisify(execFile);
const store = createStore();
const servers: Server[] = [];
let ana: Session;
let dan: Session;
let radu: Session;
let base: string;

async function freshApp(): Promise<string> {
  const { server, base } = await listenApp(createApp({ store }));
  servers.push(server);
  return base;
}

const api = (at: string, who: Session, method: string, path: string, body?: unknown) => callJson(at, method, path, { body, cookie: who.cookie, origin: at });
const newToken = async (who: Session, name: string): Promise<{ id: string; token: string }> => {
  const r = await api(base, who, 'POST', '/api/tokens', { name });
  expect(r.status).toBe(201);
  return r.body;
};
const basic = (pair: string) => `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
/** A caller behind the loopback reverse proxy (trusted by default), at `address`. */
async function get(at: string, path: string, authorization?: string, address?: string): Promise<number> {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  if (address) headers['x-forwarded-for'] = address;
  const res = await fetch(`${at}${path}`, { headers });
  await res.arrayBuffer();
  return res.status;
}
/** A fresh documentation address per run, so two runs of the suite never share a bucket. */
const address = () => `198.51.100.${1 + (randomBytes(1)[0] % 250)}`;

beforeAll(async () => {
  ana = await createTestSessionRecord({ email: 'ana@birou.ro', company: 'B', groups: ['admin'] });
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  radu = await createTestSessionRecord({ email: 'radu@birou.ro', company: 'B', enrichmentScope: null });
  expect(ana.data.flags.isAdmin).toBe(true);
  base = await freshApp();
});

afterAll(async () => {
  await getPool().query(`DELETE FROM personal_access_tokens WHERE user_id = ANY($1)`, [[ana, dan, radu].filter(Boolean).map((s) => s.data.user.id)]);
  await Promise.allSettled([ana, dan, radu].filter(Boolean).map((s) => s.end()));
  for (const s of servers) {
    await new Promise((r) => s.close(r));
  }
  await store.close();
  await closePool();
});

describe('an administrator sees and cuts off every user’s desktop access', () => {
  it('GET /api/tokens?all=true lists every user’s tokens with their owner for an admin; others get their own, all ignored', async () => {
    const dans = await newToken(dan, 'QGIS Dan');
    const radus = await newToken(radu, 'QGIS Radu');
    const all = await api(base, ana, 'GET', '/api/tokens?all=true');
    expect(all.status).toBe(200);
    expect(all.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: dans.id, name: 'QGIS Dan', userEmail: 'dan@birou.ro', lastUsedAt: null, createdAt: expect.any(String), expiresAt: expect.any(String) }),
        expect.objectContaining({ id: radus.id, name: 'QGIS Radu', userEmail: 'radu@birou.ro' }),
      ]),
    );
    expect(JSON.stringify(all.body)).not.toContain(dans.token);
    // Without all=true an admin gets their own, like anyone.
    expect((await api(base, ana, 'GET', '/api/tokens')).body.items.map((t: { id: string }) => t.id)).not.toContain(dans.id);
    const own = await api(base, dan, 'GET', '/api/tokens?all=true');
    expect(own.status).toBe(200);
    expect(own.body.items.map((t: { id: string }) => t.id)).toContain(dans.id);
    expect(own.body.items.map((t: { id: string }) => t.id)).not.toContain(radus.id);
    expect(own.body.items.every((t: Record<string, unknown>) => !('userEmail' in t))).toBe(true);
  });

  it('DELETE /api/tokens/<id> by an admin revokes anyone’s token (401 from then on); another user still cannot (404)', async () => {
    const dans = await newToken(dan, 'De tăiat');
    expect(await get(base, '/ogc', `Bearer ${dans.token}`)).toBe(200);
    expect((await api(base, radu, 'DELETE', `/api/tokens/${dans.id}`)).status).toBe(404);
    expect(await get(base, '/ogc', `Bearer ${dans.token}`)).toBe(200);
    expect(await api(base, ana, 'DELETE', `/api/tokens/${dans.id}`)).toMatchObject({ status: 200, body: { revoked: true } });
    expect(await get(base, '/ogc', `Bearer ${dans.token}`)).toBe(401);
    expect(await get(base, '/tiles/catalog', `Bearer ${dans.token}`)).toBe(401);
    expect((await api(base, ana, 'GET', '/api/tokens?all=true')).body.items.map((t: { id: string }) => t.id)).not.toContain(dans.id);
    expect((await api(base, ana, 'DELETE', `/api/tokens/${dans.id}`)).status).toBe(404);
  });

  it('the QGIS access page (as the running stack serves it) shows an admin every user’s tokens with owner, dates and a revoke button; a user only their own', async () => {
    const radus = await newToken(radu, 'Pagina QGIS');
    const page = async (who: Session) => {
      const res = await fetch(`${E2E_BASE_URL}/instrumente/qgis`, { headers: { cookie: who.cookie } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const forAdmin = await page(ana);
    expect(forAdmin).toContain('Tokenurile tuturor utilizatorilor');
    const row = forAdmin.slice(forAdmin.indexOf('data-testid="all-tokens-table"'));
    for (const text of ['Utilizator', 'Creat', 'Expiră', 'Ultima folosire', 'Pagina QGIS', 'radu@birou.ro', `data-testid="revoke-any-${radus.id}"`]) expect(row).toContain(text);
    const forUser = await page(radu);
    expect(forUser).toContain('Pagina QGIS');
    expect(forUser).not.toContain('all-tokens-table');
    expect(forUser).not.toContain('Tokenurile tuturor utilizatorilor');
    // Both are told how long a token works without a sign-in to the app.
    for (const text of [forAdmin, forUser]) expect(text).toMatch(/cel puțin o dată la (<!-- -->)?30 de zile/);
  });
});

describe('the cap of live tokens per user', () => {
  it(`holds under parallel creates: of 3 × ${MAX_TOKENS_PER_USER} at once exactly ${MAX_TOKENS_PER_USER} are made`, async () => {
    const ion = await createTestSessionRecord({ email: 'ion@birou.ro', company: 'B' });
    try {
      const answers = await Promise.all(
        Array.from({ length: 3 * MAX_TOKENS_PER_USER }, (_, i) => api(base, ion, 'POST', '/api/tokens', { name: `paralel ${i}` })),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_TOKENS_PER_USER);
      expect(statuses.filter((s) => s === 409)).toHaveLength(2 * MAX_TOKENS_PER_USER);
      expect(answers.find((a) => a.status === 409)!.body).toMatchObject({ error: 'too_many_tokens', message: expect.stringContaining(`${MAX_TOKENS_PER_USER} tokenuri active`) });
      const live = await getPool().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM personal_access_tokens WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()`,
        [ion.data.user.id],
      );
      expect(live.rows[0].n).toBe(MAX_TOKENS_PER_USER);
    } finally {
      await getPool().query(`DELETE FROM personal_access_tokens WHERE user_id = $1`, [ion.data.user.id]);
      await ion.end();
    }
  });
});

describe("a token whose user's identity the provider has not confirmed for a while", () => {
  it(`stops signing in after ${config.app.tokenIdentityMaxAgeDays} days without a sign-in or session refresh of its user, says why, and works again after one`, async () => {
    const { id, token } = await newToken(radu, 'QGIS doar');
    const bearer = `Bearer ${token}`;
    expect(await get(base, '/ogc/collections', bearer)).toBe(200);
    // Radu only used QGIS: his identity was last confirmed a day past the limit.
    await getPool().query(`UPDATE personal_access_tokens SET identity_at = now() - make_interval(days => $2 + 1) WHERE id = $1`, [id, config.app.tokenIdentityMaxAgeDays]);
    for (const path of ['/ogc/collections', '/tiles/catalog']) {
      const res = await fetch(`${base}${path}`, { headers: { authorization: bearer } });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(await res.json()).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('Conectați-vă o dată în aplicație') });
    }
    // He signs in once: his tokens take the identity of now (api/auth/routes.ts, as a session refresh does).
    const { createAuthService } = await import('../../domain/auth/service');
    await createAuthService({ store }).refreshTokenIdentities({ user: radu.data.user, groups: [], enrichmentScope: null, emailVerified: true });
    expect(await get(base, '/ogc/collections', bearer)).toBe(200);
  });
});

describe('HTTP Basic for clients without a custom header (QGIS 3.22, ArcGIS Pro, FME)', () => {
  it('the token as the password (any user name) or as the user name with an empty password signs in on /ogc and /tiles', async () => {
    const { token } = await newToken(dan, 'QGIS 3.22');
    for (const pair of [`qgis:${token}`, `dan@birou.ro:${token}`, `${token}:`]) {
      expect([pair.replace(token, '<token>'), await get(base, '/ogc/collections', basic(pair))]).toEqual([pair.replace(token, '<token>'), 200]);
      expect([pair.replace(token, '<token>'), await get(base, '/tiles/catalog', basic(pair))]).toEqual([pair.replace(token, '<token>'), 200]);
    }
    // The Basic form signs in as the token's user: the same rights as the bearer form, nothing under /api.
    expect(await get(base, '/api/tokens', basic(`x:${token}`))).toBe(401);
    for (const wrong of [`qgis:${token}x`, `${token}x:`, 'qgis:', ':', 'fără-două-puncte']) expect([wrong, await get(base, '/ogc', basic(wrong))]).toEqual([wrong, 401]);
    expect(await get(base, '/ogc', 'Basic !!!nu-este-base64')).toBe(401);
  });

  it('GDAL reads /ogc with its built-in Basic authentication (GDAL_HTTP_AUTH=BASIC), and is refused with a wrong token', async () => {
    const { token } = await newToken(dan, 'GDAL Basic');
    const env = (userpwd: string) => ({ ...process.env, GDAL_HTTP_AUTH: 'BASIC', GDAL_HTTP_USERPWD: userpwd, CPL_DEBUG: 'OFF' });
    const { stdout } = await run('ogrinfo', ['-ro', '-q', `OAPIF:${base}/ogc`], { env: env(`qgis:${token}`) });
    for (const id of ['parcels', 'buildings', 'intravilan', 'uat-boundaries']) expect(stdout).toContain(id);
    await expect(run('ogrinfo', ['-ro', '-q', `OAPIF:${base}/ogc`], { env: env(`qgis:${token}-gresit`) })).rejects.toThrow();
  });
});

describe('wrong tokens are throttled per client address, on /tiles exactly as on /ogc', () => {
  const limit = config.app.bearerFailuresPerMinute;

  it(`past ${limit} wrong tokens from one address /tiles answers 429 with Retry-After, and so does /ogc (one counter); valid tokens from that address still pass`, async () => {
    const at = await freshApp();
    const { token } = await newToken(dan, 'Biroul din spatele proxy-ului');
    const office = address();
    const wrongs: number[] = [];
    for (let i = 0; i < limit; i++) {
      // Half of the guesses as Basic: a wrong one counts as a wrong token.
      const guess = randomBytes(24).toString('hex');
      wrongs.push(await get(at, '/tiles/catalog', i % 2 ? `Bearer ${guess}` : basic(`x:${guess}`), office));
    }
    expect(wrongs.every((s) => s === 401)).toBe(true);
    const res = await fetch(`${at}/tiles/catalog`, { headers: { authorization: `Bearer ${randomBytes(24).toString('hex')}`, 'x-forwarded-for': office } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ error: 'rate_limited' });
    expect(await get(at, '/ogc', `Bearer ${randomBytes(24).toString('hex')}`, office)).toBe(429);
    expect(await get(at, '/ogc', basic(`x:${randomBytes(24).toString('hex')}`), office)).toBe(429);
    // The office's QGIS users at the same address are never refused.
    for (let i = 0; i < 5; i++) {
      expect(await get(at, '/tiles/catalog', `Bearer ${token}`, office)).toBe(200);
      expect(await get(at, '/ogc/collections', basic(`qgis:${token}`), office)).toBe(200);
    }
    // Another client address keeps its own count.
    expect(await get(at, '/tiles/catalog', `Bearer ${randomBytes(24).toString('hex')}`, `203.0.113.${1 + (randomBytes(1)[0] % 250)}`)).toBe(401);
  });

  it('a session user on the map is not counted: tiles with the session cookie never meet the wrong-token limit', async () => {
    const at = await freshApp();
    const office = address();
    for (let i = 0; i < limit + 5; i++) {
      const res = await fetch(`${at}/tiles/catalog`, { headers: { cookie: dan.cookie, 'x-forwarded-for': office } });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    expect(await get(at, '/tiles/catalog', `Bearer ${randomBytes(24).toString('hex')}`, office)).toBe(401);
  });
});

describe('TRUST_PROXY', () => {
  it('reads as express’s trust proxy: loopback by default, booleans, hop counts, address lists', () => {
    expect(trustProxySetting(undefined)).toBe('loopback');
    expect(trustProxySetting(' ')).toBe('loopback');
    expect(trustProxySetting('true')).toBe(true);
    expect(trustProxySetting('FALSE')).toBe(false);
    expect(trustProxySetting('2')).toBe(2);
    expect(trustProxySetting('10.0.0.0/8, loopback')).toBe('10.0.0.0/8, loopback');
  });
});
