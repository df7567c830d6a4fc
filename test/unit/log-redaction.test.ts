/**
 * Secrets never reach a log line: the shared logger redacts every secret-bearing field, and the
 * request log line names no query value, header or cookie.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { redactPaths } from '../../domain/log';
import { requestLog } from '../../api/http/requestLog';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { log: pino({ redact: { paths: redactPaths, censor: '[redacted]' } }, stream), lines };
}

test('passwords, tokens, cookies and authorization headers are redacted wherever they sit', () => {
  const { log, lines } = capture();
  log.info(
    {
      password: 'parola-secreta-1',
      credentials: { username: 'geoportal', password: 'parola-secreta-2' },
      session: { accessToken: 'eyJ-access', refreshToken: 'refresh-xyz', cookies: 'JSESSIONID=abc' },
      req: { headers: { authorization: 'Bearer cron-secret-123', cookie: 'cgp_session=handle' } },
    },
    'login',
  );
  const out = lines.join('');
  for (const secret of ['parola-secreta-1', 'parola-secreta-2', 'eyJ-access', 'refresh-xyz', 'JSESSIONID=abc', 'cron-secret-123', 'cgp_session=handle']) {
    expect(out).not.toContain(secret);
  }
  expect(out).toContain('geoportal');
  expect(out).toContain('[redacted]');
});

describe('the request log line', () => {
  async function serve(level: string, handler: express.RequestHandler) {
    const { lines, log } = capture();
    log.level = level;
    const app = express();
    app.set('query parser', 'simple');
    app.use(requestLog(log, (req) => req.path === '/api/health'));
    app.use(handler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { base, lines, close: () => new Promise((r) => server.close(r)) };
  }

  test('names the method, path, query keys and status, never a query value, header or cookie', async () => {
    const s = await serve('info', (_req, res) => void res.status(201).json({ ok: true }));
    try {
      const res = await fetch(`${s.base}/api/registratura?q=Zăvoianu%20Cornelia&page=2`, {
        headers: { cookie: 'cgp_session=handle-1', authorization: 'Bearer secret-2' },
      });
      expect(res.status).toBe(201);
      await new Promise((r) => setTimeout(r, 20));
      expect(s.lines).toHaveLength(1);
      const line = JSON.parse(s.lines[0]);
      expect(line).toMatchObject({ msg: 'request completed', req: { method: 'GET', path: '/api/registratura', query: ['q', 'page'] }, res: { statusCode: 201 } });
      expect(typeof line.responseTime).toBe('number');
      for (const hidden of ['Zăvoianu', 'Zăvoianu'.normalize('NFD'), 'handle-1', 'secret-2', '%20']) expect(s.lines[0]).not.toContain(hidden);
    } finally {
      await s.close();
    }
  });

  test('at warn only failures are written; the health probe never', async () => {
    const s = await serve('warn', (req, res) => void res.status(req.path === '/api/boom' ? 500 : 200).json({}));
    try {
      for (const p of ['/api/ok', '/api/health', '/api/boom']) await (await fetch(`${s.base}${p}`)).arrayBuffer();
      await new Promise((r) => setTimeout(r, 20));
      expect(s.lines.map((l) => JSON.parse(l).req.path)).toEqual(['/api/boom']);
      expect(JSON.parse(s.lines[0]).level).toBe(50);
    } finally {
      await s.close();
    }
  });
});
