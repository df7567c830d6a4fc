/** Secrets never reach a log line: the shared logger redacts every secret-bearing field. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { redactPaths } from '../../domain/log';

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
