/**
 * The health check's mail probe (domain/health.ts): every open home page asks for health every
 * 15 s, and each mail check is an SMTP connection to the office's relay, which a provider counts
 * and throttles like any client's. The probe's answer is kept for a minute: many asks, one
 * connection. A tiny SMTP server of this file stands in for the relay, counting connections.
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
  for (let i = 0; i < 4; i++) reports.push(await infrastructureHealth(getPool(), async () => 'temporal'));
  reports.push(...(await Promise.all([1, 2, 3].map(() => infrastructureHealth(getPool(), async () => 'temporal')))));
  expect(reports.map((r) => r.checks.mail.ok)).toEqual(Array(7).fill(true));
  expect(connections).toBe(1);
});
