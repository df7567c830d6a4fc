/**
 * docker-compose.yml as a production deployment reads it (issues 25 and 40): the identity provider
 * and the land-registry portal have no default, and nothing but the app is published to the
 * network (the Temporal UI read-only on loopback, MailDev and the simulators only in the staging
 * profile); the backups are wired (issue 41): the database archives its WAL with pgBackRest, the
 * workers back up through its TLS server, one pgBackRest version on both sides.
 */
import { expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../domain/config';
import { JOB_KIND, SIRUTA } from '../../temporal/common/searchAttributes';

const text = fs.readFileSync(path.join(projectRoot, 'docker-compose.yml'), 'utf8');

/** The lines of each service under `services:`, by name (two-space indented keys). */
function services(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const lines = text.split('\n');
  let current: string | null = null;
  let inServices = false;
  for (const line of lines) {
    if (/^\S/.test(line)) {
      inServices = line.startsWith('services:');
      current = null;
      continue;
    }
    const head = /^ {2}([a-z][a-z0-9-]*):\s*$/.exec(line);
    if (inServices && head) {
      current = head[1];
      out.set(current, []);
    } else if (inServices && current && line.trim() && !line.trim().startsWith('#')) out.get(current)!.push(line.trim());
  }
  return out;
}

it('the identity provider, the mail server and every secret must be given: no default', () => {
  for (const name of ['OIDC_ISSUER', 'SMTP_HOST', 'LANDREG_BASE_URL', 'SESSION_SECRET', 'ENCRYPTION_SECRET', 'OIDC_CLIENT_SECRET', 'CRON_SECRET', 'S3_SECRET_KEY', 'BACKUP_ENCRYPTION_KEY']) {
    expect([name, new RegExp(`\\$\\{${name}:\\?`).test(text), new RegExp(`\\$\\{${name}:-`).test(text)]).toEqual([name, true, false]);
  }
  expect(text).toMatch(/NODE_ENV: production/);
});

it('only the app is published; the Temporal UI is read-only on loopback, MailDev and the dev IdP only for staging', () => {
  const all = services();
  for (const [name, lines] of all) {
    const ports = lines.find((l) => l.startsWith('ports:'));
    if (!ports || name === 'app') continue;
    const staging = lines.some((l) => /^profiles:\s*\[.*staging.*\]/.test(l));
    const mappings = [...ports.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect([name, staging || mappings.every((m) => m.startsWith('127.0.0.1:'))]).toEqual([name, true]);
  }
  const ui = all.get('temporal-ui')!;
  expect(ui.join('\n')).toMatch(/TEMPORAL_DISABLE_WRITE_ACTIONS: "true"/);
  expect(ui.join('\n')).toMatch(/ports: \["127\.0\.0\.1:/);
  for (const name of ['maildev', 'oidc']) expect([name, all.get(name)!.some((l) => /^profiles:\s*\[staging\]/.test(l))]).toEqual([name, true]);
  // Every simulator (a service running simulators/…) is a staging service: production never starts one.
  const simulators = [...all].filter(([, lines]) => lines.some((l) => l.includes('simulators/'))).map(([name]) => name);
  expect(simulators).toEqual(expect.arrayContaining(['oidc', 'landreg']));
  for (const name of simulators) expect([name, all.get(name)!.some((l) => /^profiles:\s*\[staging\]/.test(l))]).toEqual([name, true]);
  expect(all.get('app')!.find((l) => l.startsWith('ports:'))).toBe('ports: ["3000:3000"]');
});

it('Temporal runs on PostgreSQL: the server image, its schema, namespace and search attributes set up by one-shot admin tools', () => {
  const all = services();
  const block = (name: string) => all.get(name)!.join('\n');
  expect(text).not.toMatch(/temporalio\/auto-setup/);
  expect(block('temporal')).toMatch(/image: temporalio\/server:\d/);
  expect(block('temporal')).toMatch(/DB: postgres12/);
  expect(block('temporal')).toMatch(/POSTGRES_SEEDS: postgres\b/);
  // The server starts only on a schema brought up to its version, for both databases.
  expect(block('temporal')).toMatch(/temporal-schema: \{ condition: service_completed_successfully \}/);
  const schema = block('temporal-schema');
  expect(schema).toMatch(/image: temporalio\/admin-tools:/);
  expect(schema).toMatch(/for pair in temporal:temporal temporal_visibility:visibility; do/);
  for (const step of ['create', 'setup-schema -v 0.0', 'update-schema -d $$schema/$$dir/versioned']) expect(schema).toContain(`$$tool ${step}`);
  expect(schema).toMatch(/temporal-sql-tool --plugin postgres12/);
  // The search attributes every job sets (temporal/common/searchAttributes.ts), as the dev server gets them from the stack.
  const namespace = block('temporal-namespace');
  expect(namespace).toMatch(/namespace create -n default/);
  expect(namespace).toContain(`for attr in ${JOB_KIND.name}:Keyword ${SIRUTA.name}:Int; do`);
  // The app and the workers (the x-app anchor) wait for them.
  const anchor = text.slice(text.indexOf('x-app: &app'), text.indexOf('\nservices:'));
  expect(anchor).toMatch(/temporal-namespace: \{ condition: service_completed_successfully \}/);
});

it('backups: the database archives with pgBackRest, the workers back up through its TLS server, one pgBackRest version', () => {
  const all = services();
  const block = (name: string) => all.get(name)!.join('\n');
  expect(block('postgres')).toContain('<<: *db-image');
  expect(block('postgres')).toContain('"archive_command=pgbackrest archive-push %p"');
  expect(block('pgbackrest')).toContain('command: ["pgbackrest", "server"]');
  expect(block('pgbackrest')).toContain('user: postgres');
  for (const volume of ['pgdata:/var/lib/postgresql/data', 'pgsocket:/var/run/postgresql']) {
    for (const name of ['postgres', 'pgbackrest']) expect([name, block(name).includes(volume)]).toEqual([name, true]);
  }
  expect(block('workers')).toMatch(/pgbackrest: \{ condition: service_healthy \}/);
  expect(block('workers')).toMatch(/s3-tls: \{ condition: service_healthy \}/);
  const anchor = text.slice(text.indexOf('x-app: &app'), text.indexOf('\nservices:'));
  expect(anchor).toContain('BACKUP_PG_HOST: pgbackrest');
  expect(anchor).toContain('BACKUP_S3_ENDPOINT: https://s3-tls:9002');
  // pgBackRest's TLS protocol wants one version on both hosts: Debian 12's package in both images.
  const dbImage = fs.readFileSync(path.join(projectRoot, 'deploy/postgres/Dockerfile'), 'utf8');
  const appImage = fs.readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8');
  expect(dbImage).toMatch(/^FROM postgres:15-bookworm$/m);
  expect(dbImage).toContain('pgbackrest/bookworm');
  expect(appImage).toMatch(/^FROM node:\d+-bookworm$/m);
  expect(appImage).toMatch(/ pgbackrest\b/);
  // The database image's pgBackRest file is the one the compose test runs (test/integration/backup-compose.test.ts).
  expect(dbImage).toContain('COPY postgres/pgbackrest.conf /etc/pgbackrest/pgbackrest.conf');
});
