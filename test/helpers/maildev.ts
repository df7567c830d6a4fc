/**
 * A MailDev of a test's own (the real server, as a child process on free ports), so a test can
 * stop and restart the SMTP server without disturbing the stack's MailDev; mails are read back
 * through its REST API, as from the stack's (config.mail.webUrl).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { projectRoot } from '../../domain/config';
import { freeLoopbackPort } from '../../domain/net/loopback';

export interface MailAddress {
  address: string;
  name: string;
}

export interface ReceivedMail {
  id: string;
  subject: string;
  to: MailAddress[];
  from: MailAddress[];
  html: string;
  text: string;
  headers: Record<string, string>;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export class TestMailDev {
  private child: ChildProcess | undefined;
  private dir = '';

  constructor(
    readonly smtpPort: number,
    readonly webPort: number,
  ) {}

  static async create(): Promise<TestMailDev> {
    const m = new TestMailDev(await freeLoopbackPort(), await freeLoopbackPort());
    m.dir = await fs.mkdtemp(path.join(os.tmpdir(), 'maildev-test-'));
    await m.start();
    return m;
  }

  get webUrl(): string {
    return `http://127.0.0.1:${this.webPort}`;
  }

  async start(): Promise<void> {
    if (this.child) return;
    this.child = spawn(
      process.execPath,
      [
        path.join(projectRoot, 'node_modules/maildev/dist/bin/maildev.js'),
        '--smtp', String(this.smtpPort), '--ip', '127.0.0.1',
        '--web', String(this.webPort), '--web-ip', '127.0.0.1',
        '--mail-directory', this.dir,
      ],
      { stdio: 'ignore' },
    );
    await waitFor(async () => (await fetch(`${this.webUrl}/api/healthz`)).ok, 30_000, 'MailDev');
  }

  /** Stops the server (SMTP refuses connections until start()). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  async mails(): Promise<ReceivedMail[]> {
    const res = await fetch(`${this.webUrl}/api/email`);
    if (!res.ok) throw new Error(`MailDev answered ${res.status}`);
    return (await res.json()) as ReceivedMail[];
  }

  async mailsTo(address: string): Promise<ReceivedMail[]> {
    return (await this.mails()).filter((m) => m.to.some((t) => t.address.toLowerCase() === address.toLowerCase()));
  }

  /** Waits until `pick` finds at least `count` mails; answers them. */
  async waitForMails(pick: (m: ReceivedMail) => boolean, count = 1, timeoutMs = 60_000): Promise<ReceivedMail[]> {
    let found: ReceivedMail[] = [];
    await waitFor(async () => {
      found = (await this.mails()).filter(pick);
      return found.length >= count;
    }, timeoutMs, `${count} mail(s)`);
    return found;
  }

  async close(): Promise<void> {
    await this.stop();
    if (this.dir) await fs.rm(this.dir, { recursive: true, force: true });
  }
}
