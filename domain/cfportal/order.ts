/**
 * `POST /api/cfportal/order` in domain terms (spec 4.3, CONTRACT.md sections 1, 3, 4): resolve each
 * parcel's county (workspacePk from the body, else the UAT catalogue), stamp the orderer, refuse
 * a parcel with a valid extract (409 `catalog_hit`) unless `force`, check the live credits against
 * this order plus what earlier queued orders will spend (402 `insufficient_credits`, nothing
 * reaches the cart), then write the batch's records. The caller enqueues the batch.
 */
import { ulid } from 'ulid';
import type { Db } from '../db/pool';
import type { PrismaClient } from '../db/prisma';
import { errors } from '../errors';
import { uatsBySiruta } from '../landreg/service';
import type { CfportalClient } from './client';
import { CF_EXTRACT_COST, createBatch, extractView, reservedCredits, type CfExtractView, type ParcelOrder } from './extracts';
import { InsufficientCreditsError } from './pipeline';
import type { CfAccountSource } from './rules';
import { accountKey } from './session';

export interface OrderParcelInput {
  nrCadastral: string;
  siruta: number;
  workspacePk?: number;
  userId?: string;
}

export interface Orderer {
  userId: string;
  isAdmin: boolean;
  hidePersonal: boolean;
}

export interface PlacedOrder {
  orderId: string;
  account: string;
  extracts: CfExtractView[];
}

/**
 * The door the order's outside read (the live credits) passes: the caller's (api/routes/cfportal.ts
 * `throughCfDoor`: the per-user and global caps, the deadline, a stop when the client leaves). Only
 * that read: once it answered, the records are written and the batch enqueued whoever waits, so a
 * client leaving never strands an order written but not queued.
 */
export type OrderDoor = <T>(read: () => Promise<T>) => Promise<T>;

export async function placeOrder(
  deps: { prisma: PrismaClient; db: Db; client: CfportalClient; accounts: CfAccountSource },
  who: Orderer,
  input: { parcels: OrderParcelInput[]; force: boolean },
  door: OrderDoor = (read) => read(),
): Promise<PlacedOrder> {
  const seen = new Set<string>();
  for (const [i, p] of input.parcels.entries()) {
    const k = `${p.siruta}:${p.nrCadastral}`;
    if (seen.has(k)) throw errors.badRequest('Aceeași parcelă apare de două ori în comandă.', [{ field: `parcels.${i}`, problem: 'duplicat' }]);
    seen.add(k);
    if (p.userId && p.userId !== who.userId && !who.isAdmin) {
      throw errors.forbidden('Doar administratorii pot comanda extrase în numele altui utilizator.');
    }
  }
  const sirutas = [...new Set(input.parcels.map((p) => p.siruta))];
  const uats = await uatsBySiruta(deps.db, sirutas);
  const missing: Array<{ field: string; problem: string }> = [];
  const parcels: ParcelOrder[] = input.parcels.map((p, i) => {
    const u = uats.get(p.siruta);
    const workspacePk = p.workspacePk ?? u?.workspacePk ?? null;
    if (workspacePk === null) missing.push({ field: `parcels.${i}.workspacePk`, problem: `județul UAT-ului ${p.siruta} nu este cunoscut; trimiteți workspacePk` });
    const orderedFor = p.userId ?? who.userId;
    return {
      nrCadastral: p.nrCadastral,
      siruta: p.siruta,
      workspacePk: workspacePk ?? 0,
      uatName: u?.name ?? null,
      userId: orderedFor,
      adminOrderedBy: orderedFor !== who.userId ? who.userId : null,
    };
  });
  if (missing.length) throw errors.badRequest('Unele parcele nu au județul (workspacePk) cunoscut.', missing);

  const account = accountKey(await deps.client.account());
  const needed = parcels.length * CF_EXTRACT_COST;
  const [live, reserved] = await Promise.all([door(() => deps.client.credits()), reservedCredits(deps.prisma, account)]);
  const available = Math.max(0, live - reserved);
  if (available < needed) throw new InsufficientCreditsError(available, needed);

  const orderId = ulid();
  const rows = await createBatch(deps.prisma, {
    orderId,
    account,
    parcels,
    force: input.force,
    settledByAdmin: input.force && who.isAdmin,
    accountInUse: async (tx) => {
      const slot = await tx.cfportalSession.findUnique({ where: { id: deps.accounts.slot }, select: { username: true, credentialsEncrypted: true } });
      return accountKey(slot?.credentialsEncrypted && slot.username ? slot.username : deps.accounts.configured.username);
    },
  });
  return { orderId, account, extracts: rows.map((r) => extractView(r, { hidePersonal: who.hidePersonal })) };
}
