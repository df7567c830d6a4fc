/**
 * The certificate-portal account connection (spec 4.3 `POST /api/cfportal/session`), separate
 * from the land-registry session: one row (cfportal_sessions 'shared') holding the connected
 * account's credentials sealed with ENCRYPTION_SECRET. Without a connected account the
 * configured CFPORTAL_USERNAME/PASSWORD are used, as the land-registry client does.
 */
import { config } from '../config';
import { decryptSecret, encryptSecret } from '../crypto/secretBox';
import type { PrismaClient } from '../db/prisma';
import { CfportalClient, type CfCredentials } from './client';

export interface CfSessionView {
  connected: boolean;
  /** The account the orders are placed with (connected one, else the configured one). */
  username: string;
  source: 'connected' | 'configured';
  connectedAt?: string;
}

// Unsealing costs a PBKDF2 derivation: remember the last one.
let unsealed: { sealed: string; creds: CfCredentials } | undefined;

export async function storedCredentials(prisma: PrismaClient): Promise<{ creds: CfCredentials; connectedAt: Date | null } | null> {
  const row = await prisma.cfportalSession.findUnique({ where: { id: 'shared' } });
  if (!row?.credentialsEncrypted) return null;
  if (unsealed?.sealed !== row.credentialsEncrypted) {
    unsealed = { sealed: row.credentialsEncrypted, creds: JSON.parse(await decryptSecret(row.credentialsEncrypted)) as CfCredentials };
  }
  return { creds: unsealed.creds, connectedAt: row.connectedAt };
}

export async function currentCredentials(prisma: PrismaClient): Promise<CfCredentials> {
  return (await storedCredentials(prisma))?.creds ?? { username: config.cfportal.username, password: config.cfportal.password };
}

export async function cfSessionView(prisma: PrismaClient): Promise<CfSessionView> {
  const stored = await storedCredentials(prisma);
  if (stored) return { connected: true, username: stored.creds.username, source: 'connected', connectedAt: stored.connectedAt?.toISOString() };
  return { connected: false, username: config.cfportal.username, source: 'configured' };
}

/** Signs in with the given (or configured) credentials and keeps them; the portal refusing them is a 422. */
export async function connectCfportal(prisma: PrismaClient, client: CfportalClient, body: Partial<CfCredentials>): Promise<CfSessionView & { credits: number }> {
  const creds: CfCredentials =
    body.username && body.password ? { username: body.username, password: body.password } : await currentCredentials(prisma);
  const { credits } = await client.login(creds);
  const credentialsEncrypted = await encryptSecret(JSON.stringify(creds));
  await prisma.cfportalSession.upsert({
    where: { id: 'shared' },
    create: { id: 'shared', username: creds.username, credentialsEncrypted, connectedAt: new Date() },
    update: { username: creds.username, credentialsEncrypted, connectedAt: new Date() },
  });
  return { ...(await cfSessionView(prisma)), credits };
}

export async function disconnectCfportal(prisma: PrismaClient): Promise<CfSessionView> {
  await prisma.cfportalSession.upsert({
    where: { id: 'shared' },
    create: { id: 'shared' },
    update: { username: null, credentialsEncrypted: null, connectedAt: null },
  });
  return cfSessionView(prisma);
}

/** A client for the current account (connected, else configured), unless `credentials` fixes one. */
export function cfportalClient(prisma: PrismaClient, baseUrl?: string, credentials?: CfCredentials): CfportalClient {
  return new CfportalClient(credentials ? async () => credentials : () => currentCredentials(prisma), { baseUrl });
}
