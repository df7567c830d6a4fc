/**
 * Limits that stay global with several web processes (issue 44 item 3, docs/operations.md "Past
 * one machine"): two web processes (api/server.ts, each a child process on its own port, shared
 * mode on with SHARED_LIMITS=1 as on two hosts) against the test store. A user's PDF work held on
 * A caps the same user's on B while a colleague is served; wrong tokens are counted once across
 * both; a token revoked through A and a session signed out through A are refused by B within a
 * second, though B keeps sessions in memory for a minute. And `WEB=2` (what `WEB=2 npm start`
 * runs): one address served by two web processes, one of them killed is replaced, and a scrape of
 * /metrics on that address counts both processes' requests whichever of them it reaches.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { callJson } from '../helpers/appServer';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { until } from '../helpers/wait';
import { freeLoopbackPort } from '../../domain/net/loopback';

interface WebChild {
  base: string;
  proc: ChildProcess;
  exited: Promise<unknown>;
}

/** One web process as `npm start` runs it, on a port of its own, shared mode on. */
async function startWeb(env: Record<string, string> = {}): Promise<WebChild> {
  const port = await freeLoopbackPort();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'api/server.ts')], {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      PORT: String(port),
      SHARED_LIMITS: '1',
      // Without shared mode a copy this old would be served after a sign-out elsewhere.
      SESSION_CACHE_TTL_MS: '60000',
      BEARER_FAILURES_PER_MINUTE: '3',
      PDF_MAX_PER_USER: '1',
      PDF_MAX_CONCURRENT: '2',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  let gone = false;
  void exited.then(() => (gone = true));
  await until(
    'the web process',
    async () => {
      if (gone) throw new Error(`web process exited before ready: ${stderr}`);
      return fetch(`${base}/api/version`).then((r) => r.ok, () => false);
    },
    90_000,
    200,
  );
  return { base, proc, exited };
}

/**
 * A PDF upload whose body is still arriving: the PDF slot is taken before the first byte is read
 * (api/routes/pdfTools.ts) and held until the client leaves. Resolves once the request is in.
 */
function slowPdf(base: string, who: TestSession): { answered: Promise<number>; leave: () => void } {
  const boundary = 'x' + randomBytes(8).toString('hex');
  const req = http.request(`${base}/api/compress-pdf`, {
    method: 'POST',
    headers: {
      cookie: who.cookie,
      origin: base,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(10 * 1024 * 1024),
    },
  });
  const answered = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`);
  return { answered, leave: () => req.destroy() };
}

const pdfPost = (base: string, who: TestSession) => callJson(base, 'POST', '/api/compress-pdf', { cookie: who.cookie, origin: base });

let a: WebChild;
let b: WebChild;
let ana: TestSession;
let dan: TestSession;

beforeAll(async () => {
  [a, b] = await Promise.all([startWeb(), startWeb()]);
  ana = await createTestSessionRecord({ email: 'ana.scale@birou.ro' });
  dan = await createTestSessionRecord({ email: 'dan.scale@birou.ro' });
}, 180_000);

afterAll(async () => {
  for (const w of [a, b]) {
    if (w && w.proc.exitCode === null) {
      w.proc.kill('SIGTERM');
      await w.exited;
    }
  }
  await ana?.end();
  await dan?.end();
  await getPool().query(`DELETE FROM personal_access_tokens WHERE user_id = ANY($1)`, [[ana, dan].filter(Boolean).map((s) => s.data.user.id)]);
  await closePool();
});

describe('two web processes, one set of limits', () => {
  it("a user's PDF work held on A refuses the same user's on B (429), a colleague on B is served, and B frees once A's ends", async () => {
    const held = slowPdf(a.base, ana);
    // A holds the slot once its lease row is written (B is asked only then: its own 400 would hold the slot a moment).
    await until('A to hold the PDF slot', async () => {
      const r = await getPool().query(`SELECT 1 FROM work_slot_leases WHERE kind = 'pdf' AND caller_key = $1`, [`u:${ana.data.user.id}`]);
      return r.rowCount === 1;
    }, 10_000, 50);
    const refused = await pdfPost(b.base, ana);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('Aveți deja o prelucrare PDF în lucru') });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The colleague passes the caps: the answer is about the missing file, not the limit.
    const colleague = await pdfPost(b.base, dan);
    expect(colleague.status).toBe(400);
    expect(colleague.body.error).not.toBe('rate_limited');

    held.leave();
    await until('the slot to come back', async () => (await pdfPost(b.base, ana)).status === 400, 10_000, 100);
  }, 60_000);

  it('wrong tokens are counted once across both processes (3 a minute per address)', async () => {
    const address = `203.0.113.${1 + (randomBytes(1)[0] % 250)}`;
    const wrong = (base: string) =>
      fetch(`${base}/ogc`, { headers: { authorization: `Bearer nu-${randomBytes(8).toString('hex')}`, 'x-forwarded-for': address } }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    expect([await wrong(a.base), await wrong(b.base), await wrong(a.base)]).toEqual([401, 401, 401]);
    expect(await wrong(b.base)).toBe(429);
    expect(await wrong(a.base)).toBe(429);
  }, 30_000);

  it('a token revoked through A is refused by B within a second', async () => {
    const created = await callJson(a.base, 'POST', '/api/tokens', { cookie: dan.cookie, origin: a.base, body: { name: 'QGIS birou' } });
    expect(created.status).toBe(201);
    // Each probe from an address of its own: the wrong-token throttle (tested above) stays out of it.
    const ogc = (base: string) =>
      fetch(`${base}/ogc`, { headers: { authorization: `Bearer ${created.body.token}`, 'x-forwarded-for': `198.18.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 250)}` } }).then((r) =>
        r.arrayBuffer().then(() => r.status),
      );
    expect([await ogc(a.base), await ogc(b.base)]).toEqual([200, 200]);
    expect((await callJson(a.base, 'DELETE', `/api/tokens/${created.body.id}`, { cookie: dan.cookie, origin: a.base })).status).toBe(200);
    await until('B to refuse the token', async () => (await ogc(b.base)) === 401, 1000, 50);
    expect(await ogc(a.base)).toBe(401);
  }, 30_000);

  it('a session signed out through A is refused by B within a second, though B had it cached', async () => {
    const radu = await createTestSessionRecord({ email: 'radu.scale@birou.ro' });
    const me = (base: string) => callJson(base, 'GET', '/api/auth/session', { cookie: radu.cookie });
    expect((await me(a.base)).status).toBe(200);
    // Twice on B: the second answer comes from its cache.
    expect((await me(b.base)).status).toBe(200);
    expect((await me(b.base)).status).toBe(200);
    const out = await fetch(`${a.base}/auth/logout`, { method: 'POST', redirect: 'manual', headers: { cookie: radu.cookie, origin: a.base } });
    expect(out.status).toBe(303);
    await until('B to refuse the session', async () => (await me(b.base)).status === 401, 1000, 50);
    expect((await me(a.base)).status).toBe(401);
  }, 30_000);
});

describe('WEB=2', () => {
  /** The web processes the cluster's primary runs. */
  const children = (pid: number): number[] => {
    try {
      return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')
        .map((l) => Number(l.trim()))
        .filter((n) => n > 0);
    } catch {
      // ps answers 1 when the process has no child.
      return [];
    }
  };

  it('serves one address from two web processes, and replaces one that is killed', async () => {
    const web = await startWeb({ WEB: '2', SHARED_LIMITS: '0' });
    try {
      const first = await until('two web processes', async () => {
        const pids = children(web.proc.pid!);
        return pids.length === 2 ? pids : undefined;
      }, 60_000, 200);
      process.kill(first[0], 'SIGKILL');
      const next = await until('a new web process', async () => {
        const pids = children(web.proc.pid!);
        return pids.length === 2 && !pids.includes(first[0]) ? pids : undefined;
      }, 60_000, 200);
      expect(next).toContain(first[1]);
      // Refused while no process listens (on a busy host the survivor may not have reached its
      // listen before the kill): asked again, not a failure.
      await until('the address to answer', async () => (await fetch(`${web.base}/api/version`).catch(() => undefined))?.ok, 60_000, 200);
    } finally {
      web.proc.kill('SIGTERM');
      await web.exited;
    }
    // The primary took its web processes with it.
    expect(children(web.proc.pid!)).toEqual([]);
  }, 180_000);

  it('one scrape of /metrics counts the requests of both web processes', async () => {
    const web = await startWeb({ WEB: '2', SHARED_LIMITS: '0' });
    const viewer = await createTestSessionRecord({ email: 'ioana.scale@birou.ro' });
    /** One request on a connection of its own: the port deals connections to the processes in turn. */
    const alone = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get(`${web.base}${path}`, { agent: false, headers: { cookie: viewer.cookie } }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
    const versionCount = (text: string) => Number(/^geoportal_http_requests_total\{route="\/api\/version",method="GET",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    try {
      // Both processes serve: each tells when it first checked the database, so two answers differ.
      const firstChecks = new Set<string>();
      await until('both web processes to answer', async () => {
        const health = await alone('/api/health');
        if (health.status === 200) firstChecks.add((JSON.parse(health.body) as { checks: { database: { since: string } } }).checks.database.since);
        return firstChecks.size === 2;
      }, 60_000, 100);

      const before = await alone('/metrics');
      expect(before.status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await alone('/api/version')).status).toBe(200);
      // Whichever process each scrape reaches, it reads the five requests, however they were dealt.
      for (let i = 0; i < 3; i++) {
        const after = await alone('/metrics');
        expect(after.status).toBe(200);
        expect(versionCount(after.body) - versionCount(before.body)).toBe(5);
        expect(after.body).toMatch(/^geoportal_db_pool_connections\{pool="pool",state="total"\} \d+$/m);
      }
    } finally {
      await viewer.end();
      web.proc.kill('SIGTERM');
      await web.exited;
    }
  }, 180_000);
});
