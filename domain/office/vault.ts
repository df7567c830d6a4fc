/**
 * The password vault (spec 2.8, 5.8; CONTRACT.md section 3 "Vault entry"; module version 0.2.0).
 * Passwords are sealed with domain/crypto/secretBox (AES-256-GCM, PBKDF2-SHA256 key) bound to the
 * record: the record id and company are the associated data, so a ciphertext copied onto another
 * record, or left behind when the company changes without re-sealing, does not open. The
 * iteration count is kept per record so the work factor can be raised later. Entries belong to a
 * company (G, the group company, sees all); reading a password is logged. A password appears only
 * in the single-entry read: never in a list, a log line or an error.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../db/prisma';
import { AppError, errors } from '../errors';
import { childLogger } from '../log';
import { PBKDF2_ITERATIONS, DecryptionError, decryptSecret, encryptSecret, isEncryptedSecret } from '../crypto/secretBox';
import { COMPANIES, GROUP_COMPANY, type VaultCaller } from './rules';

const log = childLogger('vault');

export interface VaultEntryOut {
  id: string;
  name: string;
  username: string | null;
  url: string | null;
  notes: string | null;
  company: string | null;
  hasPassword: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface VaultEntryWithPassword extends VaultEntryOut {
  password: string | null;
}

export interface VaultInput {
  name?: string;
  username?: string | null;
  url?: string | null;
  password?: string | null;
  notes?: string | null;
  company?: (typeof COMPANIES)[number];
}

/** What binds a ciphertext to its record. */
export function vaultAad(id: string, company: string | null): string {
  return `vault-entry:${id}:${company ?? ''}`;
}

export async function sealPassword(id: string, company: string | null, password: string): Promise<{ password: string; kdfIterations: number }> {
  return { password: await encryptSecret(password, { aad: vaultAad(id, company), iterations: PBKDF2_ITERATIONS }), kdfIterations: PBKDF2_ITERATIONS };
}

const decryptFailed = () =>
  new AppError(500, 'internal_error', 'Parola acestei intrări nu poate fi decriptată (date alterate sau cheie schimbată).', {
    hint: 'decryption_failed',
  });

type Row = {
  id: string;
  name: string;
  username: string | null;
  url: string | null;
  password: string | null;
  notes: string | null;
  company: string | null;
  kdfIterations: number | null;
  createdAt: Date;
  updatedAt: Date;
};

async function openPassword(row: Row): Promise<string | null> {
  if (row.password === null) return null;
  // Legacy plaintext (not yet migrated by PATCH) is what it is.
  if (row.kdfIterations === null && !isEncryptedSecret(row.password)) return row.password;
  try {
    return await decryptSecret(row.password, {
      aad: row.kdfIterations === null ? undefined : vaultAad(row.id, row.company),
      iterations: row.kdfIterations ?? PBKDF2_ITERATIONS,
    });
  } catch (err) {
    if (err instanceof DecryptionError) {
      log.error({ entryId: row.id }, 'vault entry does not decrypt');
      throw decryptFailed();
    }
    throw err;
  }
}

function out(row: Row): VaultEntryOut {
  return {
    id: row.id,
    name: row.name,
    username: row.username,
    url: row.url,
    notes: row.notes,
    company: row.company,
    hasPassword: row.password !== null && row.password !== '',
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function companyScope(caller: VaultCaller): { company?: string } {
  if (!caller.company) throw errors.forbidden('Contul dumneavoastră nu are o firmă asociată; seiful nu este disponibil.');
  return caller.company === GROUP_COMPANY ? {} : { company: caller.company };
}

async function findVisible(prisma: PrismaClient, caller: VaultCaller, id: string): Promise<Row> {
  const row = await prisma.vaultEntry.findFirst({ where: { id, ...companyScope(caller) } });
  if (!row) throw errors.notFound('Intrarea din seif nu există.');
  return row;
}

/** The company a new or moved entry belongs to: the caller's own, or any for the group company. */
function targetCompany(caller: VaultCaller, wanted: string | undefined, current?: string | null): string | null {
  companyScope(caller);
  if (wanted === undefined) return current !== undefined ? current : caller.company;
  if (caller.company !== GROUP_COMPANY && wanted !== caller.company) {
    throw errors.forbidden('Puteți salva intrări doar pentru firma dumneavoastră.');
  }
  return wanted;
}

export async function listVault(prisma: PrismaClient, caller: VaultCaller, q?: string): Promise<VaultEntryOut[]> {
  const search = q?.trim();
  const rows = await prisma.vaultEntry.findMany({
    where: {
      ...companyScope(caller),
      ...(search
        ? {
            OR: [
              { name: { contains: search, mode: 'insensitive' } },
              { username: { contains: search, mode: 'insensitive' } },
              { url: { contains: search, mode: 'insensitive' } },
              { notes: { contains: search, mode: 'insensitive' } },
            ],
          }
        : {}),
    },
    orderBy: [{ name: 'asc' }, { createdAt: 'asc' }],
  });
  return rows.map(out);
}

/** The one read that carries the password; recorded in the access log. */
export async function revealVaultEntry(prisma: PrismaClient, caller: VaultCaller, id: string): Promise<VaultEntryWithPassword> {
  const row = await findVisible(prisma, caller, id);
  const password = await openPassword(row);
  await prisma.vaultAccessLog.create({
    data: { entryId: row.id, entryName: row.name, company: row.company, userId: caller.userId, userEmail: caller.email },
  });
  return { ...out(row), password };
}

export async function createVaultEntry(prisma: PrismaClient, caller: VaultCaller, input: VaultInput & { name: string }): Promise<VaultEntryOut> {
  const id = randomUUID();
  const company = targetCompany(caller, input.company);
  const sealed = input.password ? await sealPassword(id, company, input.password) : { password: null, kdfIterations: null };
  const row = await prisma.vaultEntry.create({
    data: {
      id,
      name: input.name,
      username: input.username ?? null,
      url: input.url ?? null,
      notes: input.notes ?? null,
      company,
      createdBy: caller.email,
      ...sealed,
    },
  });
  return out(row);
}

export async function updateVaultEntry(prisma: PrismaClient, caller: VaultCaller, id: string, input: VaultInput): Promise<VaultEntryOut> {
  const row = await findVisible(prisma, caller, id);
  const company = targetCompany(caller, input.company, row.company);
  let sealed: { password: string | null; kdfIterations: number | null } | undefined;
  if (input.password !== undefined) {
    sealed = input.password ? await sealPassword(id, company, input.password) : { password: null, kdfIterations: null };
  } else if (company !== row.company && row.password) {
    // The company is part of the associated data: moving the entry re-seals its password.
    sealed = await sealPassword(id, company, (await openPassword(row))!);
  }
  const updated = await prisma.vaultEntry.update({
    where: { id },
    data: {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.username !== undefined ? { username: input.username } : {}),
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      company,
      ...(sealed ?? {}),
    },
  });
  return out(updated);
}

export async function deleteVaultEntry(prisma: PrismaClient, caller: VaultCaller, id: string): Promise<void> {
  await findVisible(prisma, caller, id);
  await prisma.vaultEntry.delete({ where: { id } });
}

/**
 * Re-seals the caller's legacy entries: plaintext passwords, and `v1:` values written before the
 * record binding (no iteration count stored, no associated data). Idempotent: a second call finds
 * nothing left. An entry that does not open is left as it is and logged by id.
 */
export async function migrateLegacyVault(prisma: PrismaClient, caller: VaultCaller): Promise<{ migrated: number }> {
  const rows = await prisma.vaultEntry.findMany({
    where: { ...companyScope(caller), kdfIterations: null, password: { not: null } },
  });
  let migrated = 0;
  for (const row of rows) {
    if (!row.password) continue;
    let plain: string;
    try {
      plain = (await openPassword(row))!;
    } catch {
      continue;
    }
    const sealed = await sealPassword(row.id, row.company, plain);
    // Only if nobody changed it meanwhile: a concurrent PATCH or PUT must not be overwritten.
    const { count } = await prisma.vaultEntry.updateMany({ where: { id: row.id, kdfIterations: null, password: row.password }, data: sealed });
    migrated += count;
  }
  if (migrated) log.info({ migrated }, 'legacy vault entries re-encrypted');
  return { migrated };
}

export interface VaultAccessOut {
  at: string;
  entryId: string | null;
  entryName: string;
  userEmail: string;
}

export async function vaultAccessLog(prisma: PrismaClient, caller: VaultCaller, entryId?: string, limit = 100): Promise<VaultAccessOut[]> {
  if (entryId) await findVisible(prisma, caller, entryId);
  const rows = await prisma.vaultAccessLog.findMany({
    where: { ...companyScope(caller), ...(entryId ? { entryId } : {}) },
    orderBy: { at: 'desc' },
    take: limit,
  });
  return rows.map((r) => ({ at: r.at.toISOString(), entryId: r.entryId, entryName: r.entryName, userEmail: r.userEmail }));
}
