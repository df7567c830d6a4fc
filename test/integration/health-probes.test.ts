/**
 * The health check's mail probe (domain/health.ts): every open home page asks for health every
 * 15 s, and each mail check is an SMTP connection to the office's relay, which a provider counts
 * and throttles like any client's. The probe's answer is kept for a minute: many asks, one
 * connection. A tiny SMTP server of this file stands in for the relay, counting connections. A
 * failing part's own error text is for administrators; everyone else reads that it does not answer.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import net from 'node:net';

let connections = 0;
const relay = net.createServer((socket) => {
  connections++;
  socket.write('220 releu.birou.ro ESMTP\r\n');
  socket.on('data', (chunk) => {
    for (const line of chunk.toString('latin1').split('\r\n').filter(Boolean)) {
      if (/^(EHLO|HELO)/i.test(line)) socket.write('250-releu.birou.ro\r\n250 8BITMIME\r\n');
      else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
      else socket.write('250 OK\r\n');
    }
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  process.env.SMTP_HOST = '127.0.0.1';
  process.env.SMTP_PORT = String((relay.address() as net.AddressInfo).port);
});

afterAll(async () => {
  const { closePool } = await import('../../domain/db/pool');
  await closePool();
  await new Promise((r) => relay.close(r));
});

test('many health asks within a minute make one SMTP connection, and all of them say the mail server works', async () => {
  // config reads the environment once, at import: after the relay's port is known.
  const { infrastructureHealth } = await import('../../domain/health');
  const { getPool } = await import('../../domain/db/pool');
  const reports = [];
  for (let i = 0; i < 4; i++) reports.push(await infrastructureHealth(getPool(), async () => 'temporal', { technical: true }));
  reports.push(...(await Promise.all([1, 2, 3].map(() => infrastructureHealth(getPool(), async () => 'temporal', { technical: true })))));
  expect(reports.map((r) => r.checks.mail.ok)).toEqual(Array(7).fill(true));
  expect(connections).toBe(1);
});

test('a failing part’s own error text (an internal address) is shown to administrators only; everyone sees that it does not answer', async () => {
  const { infrastructureHealth } = await import('../../domain/health');
  const { getPool } = await import('../../domain/db/pool');
  // What the Temporal client throws when its server's address does not answer.
  const unreachable = async (): Promise<string> => {
    throw new Error('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 10.0.4.7:7233');
  };
  const admin = await infrastructureHealth(getPool(), unreachable, { technical: true });
  const colleague = await infrastructureHealth(getPool(), unreachable, { technical: false });
  expect(admin.checks.temporal).toMatchObject({ ok: false, detail: expect.stringContaining('10.0.4.7:7233') });
  expect(colleague.checks.temporal).toMatchObject({ ok: false, detail: 'Nu răspunde; detaliile le văd administratorii.' });
  expect(JSON.stringify(colleague)).not.toContain('10.0.4.7');
  expect([admin.ok, colleague.ok]).toEqual([false, false]);
  // The service's own texts (the portal, the backup) read the same for both.
  expect(colleague.checks.portal.detail).toBe(admin.checks.portal.detail);
  expect(colleague.checks.backup.detail).toBe(admin.checks.backup.detail);
});
