/**
 * The certificate-portal account (spec 4.3 `POST /api/cfportal/session`, admin only), separate
 * from the land-registry session. The account in use is named by one row of cfportal_sessions
 * (the slot, 'shared'); without a connected account the configured CFPORTAL_USERNAME/PASSWORD are
 * used. Every account ever connected keeps its sealed credentials in cfportal_accounts, so a
 * batch runs every step as the account it was queued under (docs/cf.md "One account").
 * Switching the account while batches of the one in use are unfinished is refused (409
 * `jobs_running`); the check and the switch hold the `cf-account` advisory lock, which an order
 * holds shared while it writes its batch.
 */
import { config } from '../config';
import { decryptSecret, encryptSecret } from '../crypto/secretBox';
import type { Db } from '../db/pool';
import type { PrismaClient } from '../db/prisma';
import { errors } from '../errors';
import { CfportalClient } from './client';
import type { CfAccountSource, CfCredentials } from './rules';
import { IN_FLIGHT_STATUSES } from './extracts';
import { countOf } from '../text/plural';

export const configuredAccountSource = (): CfAccountSource => ({
  slot: 'shared',
  configured: { username: config.cfportal.username, password: config.cfportal.password },
});

export interface CfSessionView {
  connected: boolean;
  /** The account the orders are placed with (connected one, else the configured one). */
  username: string;
  source: 'connected' | 'configured';
  connectedAt?: string;
}

/** The account's queue key: a workflow-id scope (no ':'), stable per account. */
export const accountKey = (username: string) => username.toLowerCase().replace(/[^a-z0-9._@-]/g, '_');

/** The lock an account switch holds exclusively and an order's batch write holds shared. */
export const ACCOUNT_LOCK = 'cf-account';

// Unsealing costs a PBKDF2 derivation: remember the last few.
const unsealed = new Map<string, CfCredentials>();
async function unseal(sealed: string): Promise<CfCredentials> {
  let c = unsealed.get(sealed);
  if (!c) {
    if (unsealed.size > 20) unsealed.clear();
    c = JSON.parse(await decryptSecret(sealed)) as CfCredentials;
    unsealed.set(sealed, c);
  }
  return c;
}

export async function storedCredentials(prisma: PrismaClient, slot: string): Promise<{ creds: CfCredentials; connectedAt: Date | null } | null> {
  const row = await prisma.cfportalSession.findUnique({ where: { id: slot } });
  if (!row?.credentialsEncrypted) return null;
  return { creds: await unseal(row.credentialsEncrypted), connectedAt: row.connectedAt };
}

export async function currentCredentials(prisma: PrismaClient, src: CfAccountSource): Promise<CfCredentials> {
  return (await storedCredentials(prisma, src.slot))?.creds ?? src.configured;
}

/** The credentials of the account a batch was queued under (never the one connected since). */
export async function credentialsFor(prisma: PrismaClient, account: string, src: CfAccountSource): Promise<CfCredentials> {
  const row = await prisma.cfportalAccount.findUnique({ where: { account } });
  if (row) return await unseal(row.credentialsEncrypted);
  if (accountKey(src.configured.username) === account) return src.configured;
  throw errors.conflict('cfportal_account_unknown', `Contul portalului de extrase „${account}” nu mai este cunoscut; un administrator trebuie să îl conecteze din nou.`);
}

export async function cfSessionView(prisma: PrismaClient, src: CfAccountSource): Promise<CfSessionView> {
  const stored = await storedCredentials(prisma, src.slot);
  if (stored) return { connected: true, username: stored.creds.username, source: 'connected', connectedAt: stored.connectedAt?.toISOString() };
  return { connected: false, username: src.configured.username, source: 'configured' };
}

/**
 * Makes `next` (null: the configured account) the account in use. A change of account while
 * batches of the current one are unfinished is refused with 409 `jobs_running`: their steps
 * would still run as their own account, but the credits shown and checked would be another's.
 */
async function switchAccount(prisma: PrismaClient, src: CfAccountSource, next: CfCredentials | null): Promise<void> {
  // Sealed before the transaction: key derivation runs on the thread pool, not under the lock.
  const sealed = next ? await encryptSecret(JSON.stringify(next)) : null;
  await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${ACCOUNT_LOCK}))::text`;
    const row = await tx.cfportalSession.findUnique({ where: { id: src.slot } });
    const current = row?.credentialsEncrypted ? (await unseal(row.credentialsEncrypted)).username : src.configured.username;
    const target = next?.username ?? src.configured.username;
    if (accountKey(current) !== accountKey(target)) {
      const running = await tx.cfExtract.findMany({
        where: { portalAccount: accountKey(current), status: { in: [...IN_FLIGHT_STATUSES] } },
        distinct: ['orderId'],
        select: { orderId: true },
        take: 50,
      });
      if (running.length) {
        throw errors.conflict(
          'jobs_running',
          `Contul portalului de extrase nu poate fi schimbat cât timp ${running.length === 1 ? 'o comandă este' : `${countOf(running.length, 'comandă', 'comenzi')} sunt`} în lucru. Așteptați finalizarea lor.`,
          { runningJobs: running.map((r) => r.orderId) },
        );
      }
    }
    if (next && sealed) {
      await tx.cfportalAccount.upsert({
        where: { account: accountKey(next.username) },
        create: { account: accountKey(next.username), username: next.username, credentialsEncrypted: sealed },
        update: { username: next.username, credentialsEncrypted: sealed },
      });
      await tx.cfportalSession.upsert({
        where: { id: src.slot },
        create: { id: src.slot, username: next.username, credentialsEncrypted: sealed, connectedAt: new Date() },
        update: { username: next.username, credentialsEncrypted: sealed, connectedAt: new Date() },
      });
    } else {
      await tx.cfportalSession.upsert({
        where: { id: src.slot },
        create: { id: src.slot },
        update: { username: null, credentialsEncrypted: null, connectedAt: null },
      });
    }
  });
}

/** Signs in with the given (or current) credentials and makes them the account in use; the portal refusing them is a 422. */
export async function connectCfportal(
  prisma: PrismaClient,
  client: CfportalClient,
  src: CfAccountSource,
  body: Partial<CfCredentials>,
): Promise<CfSessionView & { credits: number }> {
  const creds: CfCredentials = body.username && body.password ? { username: body.username, password: body.password } : await currentCredentials(prisma, src);
  // The sign-in happens before the lock: no outside call under a transaction (docs/architecture.md).
  const { credits } = await client.login(creds);
  await switchAccount(prisma, src, creds);
  return { ...(await cfSessionView(prisma, src)), credits };
}

export async function disconnectCfportal(prisma: PrismaClient, src: CfAccountSource): Promise<CfSessionView> {
  await switchAccount(prisma, src, null);
  return cfSessionView(prisma, src);
}

/** A client for the account in use (connected, else configured). */
export function cfportalClient(prisma: PrismaClient, db: Db, src: CfAccountSource, baseUrl?: string): CfportalClient {
  return new CfportalClient(() => currentCredentials(prisma, src), { db, baseUrl });
}

/** A client pinned to one account (a batch's). */
export function cfportalClientFor(prisma: PrismaClient, db: Db, account: string, src: CfAccountSource, baseUrl?: string): CfportalClient {
  return new CfportalClient(() => credentialsFor(prisma, account, src), { db, baseUrl });
}
