/**
 * CF extract records (spec 2.5, CONTRACT.md section 3) through Prisma: a batch's rows are created
 * together (catalog check and version counter under a per-parcel advisory lock, spec 9.4), updated
 * after every pipeline step, listed for the orders page with the viewer's redaction, and read for
 * the download. Statuses: pending → cart → submitted → processing → downloading → completed, any
 * → failed, pending → cancelled.
 */
import { Prisma, type PrismaClient } from '../db/prisma';
import { errors } from '../errors';
import { EXTRACT_STATUS_LABELS } from '../text/labels';
import { uiState, type CfUiState } from './rules';

/** Spec 3.2 / CONTRACT.md 3: a completed extract is valid 30 days from issue. */
export const CF_VALIDITY_DAYS = 30;
export const CF_VALIDITY_MS = CF_VALIDITY_DAYS * 24 * 60 * 60 * 1000;
/** Spec 8: each extract costs one credit. */
export const CF_EXTRACT_COST = 1;

export const IN_FLIGHT_STATUSES = ['pending', 'cart', 'submitted', 'processing', 'downloading'] as const;

/** The batch's machine steps, in order (current_step, step_no): the UI shows them as "step n of N". */
export const CF_STEPS = ['queued', 'credits', 'cart', 'metadata', 'submit', 'poll', 'documents', 'download', 'store', 'notify', 'done'] as const;
export type CfStep = (typeof CF_STEPS)[number];
export const stepNo = (s: CfStep) => CF_STEPS.indexOf(s) + 1;

export interface ParcelOrder {
  nrCadastral: string;
  siruta: number;
  workspacePk: number;
  uatName: string | null;
  /** The orderer (session user unless the body named one). */
  userId: string;
  /** The operator when an admin orders for someone else. */
  adminOrderedBy: string | null;
}

export interface CfExtractView {
  id: string;
  orderId: string | null;
  nrCadastral: string;
  siruta: number | null;
  uatName: string | null;
  workspacePk: number | null;
  /** Null for viewers who may not see personal data. */
  cfNumber: string | null;
  status: string;
  state: CfUiState;
  currentStep: string | null;
  stepNo: number;
  stepsTotal: number;
  version: number;
  userId: string | null;
  type: string;
  adminOrderedBy: string | null;
  issuedAt: string | null;
  expiresAt: string | null;
  documentName: string | null;
  downloadUrl: string | null;
  error: string | null;
  /** The portal did not list this batch's submit in time: an admin reconciles before anything is ordered again. */
  reconcileAt: string | null;
  /** What `cancelExtract` accepts: pending, its batch not yet about to be submitted (the page offers "Anulează" only then). */
  cancellable: boolean;
  createdAt: string;
  updatedAt: string;
}

type Row = Prisma.CfExtractGetPayload<object> & { hasFile?: boolean };

export const downloadUrlOf = (id: string) => `/api/cfportal/download?id=${id}`;

export function extractView(r: Row, opts: { hidePersonal: boolean; now?: Date }): CfExtractView {
  const hasFile = r.hasFile ?? (r.s3Key !== null || r.pdfData !== null);
  return {
    id: r.id,
    orderId: r.orderId,
    nrCadastral: r.nrCadastral,
    siruta: r.siruta,
    uatName: r.uatName,
    workspacePk: r.workspacePk,
    cfNumber: opts.hidePersonal ? null : r.cfNumber,
    status: r.status,
    state: uiState(r.status, r.expiresAt, opts.now),
    currentStep: r.currentStep,
    stepNo: r.stepNo,
    stepsTotal: CF_STEPS.length,
    version: r.version,
    userId: r.userId,
    type: r.type,
    adminOrderedBy: r.adminOrderedBy,
    issuedAt: r.issuedAt?.toISOString() ?? null,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    documentName: r.documentName,
    downloadUrl: r.status === 'completed' && hasFile ? downloadUrlOf(r.id) : null,
    error: r.error,
    reconcileAt: r.reconcileAt?.toISOString() ?? null,
    cancellable: r.status === 'pending' && r.submitIntentAt === null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The columns a list needs: never the legacy inline PDF bytes. */
const LIST_SELECT = {
  id: true, userId: true, type: true, adminOrderedBy: true, nrCadastral: true, siruta: true, workspacePk: true, orderId: true,
  status: true, version: true, issuedAt: true, expiresAt: true, s3Key: true, documentName: true, error: true, createdAt: true,
  updatedAt: true, currentStep: true, stepNo: true, batchSize: true, portalAccount: true, portalOrderId: true, portalItemId: true,
  portalDocumentId: true, cfNumber: true, uatName: true, submitIntentAt: true, submittedAt: true, submitSentAt: true, reconcileAt: true,
} as const;

async function withFileFlag(prisma: PrismaClient, rows: Array<Omit<Row, 'pdfData'>>): Promise<Row[]> {
  const legacy = rows.filter((r) => r.s3Key === null && r.status === 'completed').map((r) => r.id);
  const withPdf = new Set(
    legacy.length
      ? (await prisma.cfExtract.findMany({ where: { id: { in: legacy }, pdfData: { not: null } }, select: { id: true } })).map((r) => r.id)
      : [],
  );
  return rows.map((r) => ({ ...r, pdfData: null, hasFile: r.s3Key !== null || withPdf.has(r.id) }));
}

/** Orders arriving together queue for connections; a busy pool must mean waiting, not a 500. */
const TX_LIMITS = { maxWait: 30_000, timeout: 30_000 };

/**
 * Creates the extracts of one batch, all with `orderId`. Per parcel, under an advisory lock on
 * (siruta, cadastral number): a valid completed extract refuses the batch with 409 `catalog_hit`
 * unless `force`; otherwise the version is one more than the parcel's highest (spec 9.4).
 */
export async function createBatch(
  prisma: PrismaClient,
  input: {
    orderId: string;
    account: string;
    parcels: ParcelOrder[];
    force: boolean;
    /**
     * An administrator orders with force: they have checked at the portal that a batch which
     * failed after its submit (UNSETTLED) was not paid, or was and is lost. Nobody else reorders such a parcel.
     */
    settledByAdmin?: boolean;
    now?: Date;
    /** The account in use, read under the account lock: a switch since the credit check refuses the order. */
    accountInUse: (tx: Prisma.TransactionClient) => Promise<string>;
  },
): Promise<Row[]> {
  const now = input.now ?? new Date();
  return prisma.$transaction(async (tx) => {
    // Shared with other orders, exclusive against an account switch (domain/cfportal/session.ts).
    await tx.$queryRaw`SELECT pg_advisory_xact_lock_shared(hashtext(${'cf-account'}))::text`;
    if ((await input.accountInUse(tx)) !== input.account) {
      throw errors.conflict('cfportal_account_changed', 'Contul portalului de extrase tocmai a fost schimbat. Trimiteți comanda din nou.');
    }
    const hits: Array<{ nrCadastral: string; siruta: number; extractId: string; expiresAt: string; downloadUrl: string }> = [];
    const inProgress: Array<{ nrCadastral: string; siruta: number; extractId: string; status: string }> = [];
    const unsettled: Array<{ nrCadastral: string; siruta: number; extractId: string }> = [];
    const versions: number[] = [];
    // Locks in a stable order, so two batches naming the same parcels never deadlock. Whoever
    // holds a parcel's lock sees every batch committed before it: two concurrent orders of one
    // parcel are serialised here, and the second finds the first in flight.
    const keys = [...new Set(input.parcels.map((p) => `cf-version:${p.siruta}:${p.nrCadastral}`))].sort();
    for (const k of keys) await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${k}))::text`;
    for (const p of input.parcels) {
      const prev = await tx.cfExtract.findMany({
        where: { nrCadastral: p.nrCadastral, siruta: p.siruta, status: { not: 'cancelled' } },
        orderBy: [{ version: 'desc' }, { createdAt: 'desc' }],
        select: { id: true, status: true, version: true, expiresAt: true, reconcileAt: true },
        take: 20,
      });
      const running = prev.find((e) => (IN_FLIGHT_STATUSES as readonly string[]).includes(e.status));
      if (running) inProgress.push({ nrCadastral: p.nrCadastral, siruta: p.siruta, extractId: running.id, status: running.status });
      const latest = prev[0];
      if (latest && isUnsettled(latest) && !input.settledByAdmin) unsettled.push({ nrCadastral: p.nrCadastral, siruta: p.siruta, extractId: latest.id });
      const valid = prev.find((e) => uiState(e.status, e.expiresAt, now) === 'valid');
      if (valid && !input.force) {
        hits.push({ nrCadastral: p.nrCadastral, siruta: p.siruta, extractId: valid.id, expiresAt: valid.expiresAt!.toISOString(), downloadUrl: downloadUrlOf(valid.id) });
      }
      const maxVersion = Math.max(0, ...prev.map((e) => e.version), ...versions.filter((_, i) => sameParcel(input.parcels[i], p)));
      versions.push(maxVersion + 1);
    }
    // An unfinished extract is about to be paid for: a second one would be paid twice, force or not.
    if (inProgress.length) {
      throw errors.conflict('order_in_progress', `Extrasul CF pentru parcela ${inProgress[0].nrCadastral} este deja comandat și în lucru.`, {
        extractId: inProgress[0].extractId,
        inProgress,
      });
    }
    if (unsettled.length) {
      throw errors.conflict(
        'order_unsettled',
        `Comanda anterioară a parcelei ${unsettled[0].nrCadastral} a fost trimisă portalului și nu s-a încheiat: poate fi deja plătită. Un administrator verifică în portal și o poate comanda din nou (cu „force”).`,
        { extractId: unsettled[0].extractId, unsettled },
      );
    }
    if (hits.length) {
      throw errors.conflict('catalog_hit', 'Există deja un extras CF valabil pentru această parcelă. Folosiți-l sau comandați din nou cu „force”.', {
        hits,
        downloadUrl: hits[0].downloadUrl,
      });
    }
    return tx.cfExtract.createManyAndReturn({
      data: input.parcels.map((p, i) => ({
        orderId: input.orderId,
        nrCadastral: p.nrCadastral,
        siruta: p.siruta,
        workspacePk: p.workspacePk,
        uatName: p.uatName,
        userId: p.userId,
        type: p.adminOrderedBy ? 'admin' : 'portal',
        adminOrderedBy: p.adminOrderedBy,
        status: 'pending',
        version: versions[i],
        currentStep: 'queued',
        stepNo: stepNo('queued'),
        batchSize: input.parcels.length,
        portalAccount: input.account,
      })),
    });
  }, TX_LIMITS);
}

const sameParcel = (a: ParcelOrder, b: ParcelOrder) => a.nrCadastral === b.nrCadastral && a.siruta === b.siruta;

export function batchExtracts(prisma: PrismaClient, orderId: string) {
  return prisma.cfExtract.findMany({ where: { orderId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: LIST_SELECT });
}

/** One step of the whole batch (rows already completed or failed keep their state). */
export async function setBatchStep(
  prisma: PrismaClient,
  orderId: string,
  step: CfStep,
  data: Prisma.CfExtractUpdateManyMutationInput = {},
): Promise<void> {
  await prisma.cfExtract.updateMany({
    where: { orderId, status: { in: [...IN_FLIGHT_STATUSES] } },
    data: { currentStep: step, stepNo: stepNo(step), error: null, ...data },
  });
}

export async function setExtract(prisma: PrismaClient, id: string, step: CfStep, data: Prisma.CfExtractUpdateInput = {}): Promise<void> {
  await prisma.cfExtract.update({ where: { id }, data: { currentStep: step, stepNo: stepNo(step), ...data } });
}

/** A batch that failed before anything was sent to the portal: nothing was paid. */
export async function failBatch(prisma: PrismaClient, orderId: string, error: string): Promise<void> {
  await prisma.cfExtract.updateMany({
    where: { orderId, status: { in: [...IN_FLIGHT_STATUSES] } },
    data: { status: 'failed', error: error.slice(0, 500) },
  });
}

/**
 * A batch that never reached its queue (its start failed: Temporal down or refusing). Its
 * extracts still waiting fail, nothing paid: left pending, they would hold their parcels
 * (`order_in_progress`) and the account's credits (`reservedCredits`) for good. Any the queue
 * took meanwhile (the start's answer lost, the signal delivered) are the queue's to finish.
 */
export async function abandonBatch(prisma: PrismaClient, orderId: string): Promise<number> {
  const r = await prisma.cfExtract.updateMany({ where: { orderId, status: 'pending', submitIntentAt: null }, data: { status: 'failed', error: ABANDONED_MESSAGE } });
  return r.count;
}

export const ABANDONED_MESSAGE = 'Comanda nu a putut fi pusă în coada portalului; nu s-a plătit nimic. Trimiteți-o din nou.';

export const UNSETTLED_MESSAGE = 'Comanda fusese trimisă portalului și poate fi deja plătită: un administrator verifică în portal înainte ca parcela să fie comandată din nou.';

/**
 * Failed after the submit was sent (its order adopted or not): the portal may have taken and
 * charged it, so nobody may order these parcels again before an administrator has looked.
 */
export function isUnsettled(e: { status: string; reconcileAt: Date | null }): boolean {
  return e.status === 'failed' && e.reconcileAt !== null;
}

/**
 * A batch whose job failed, for whatever reason (the catch-all of the batch workflow). Extracts
 * never sent to the portal simply fail. Those of a sent submit (`submit_sent_at`, or an adopted
 * order) fail UNSETTLED (`reconcile_at` kept set): a portal that was down for the polls, a
 * password changed mid-batch or a day without the documents must not let a colleague pay for the
 * same parcels again (createBatch: 409 `order_unsettled`). Answers how many are unsettled.
 */
export async function failBatchAfterError(prisma: PrismaClient, orderId: string, error: string): Promise<{ unsettled: number }> {
  const message = error.slice(0, 300);
  const [, sent] = await prisma.$transaction([
    prisma.cfExtract.updateMany({
      where: { orderId, status: { in: [...IN_FLIGHT_STATUSES] }, submitSentAt: null, portalOrderId: null },
      data: { status: 'failed', error: message },
    }),
    prisma.cfExtract.updateMany({
      where: { orderId, status: { in: [...IN_FLIGHT_STATUSES] } },
      data: { status: 'failed', error: `${message} ${UNSETTLED_MESSAGE}`.slice(0, 500), reconcileAt: new Date() },
    }),
  ]);
  return { unsettled: sent.count };
}

/**
 * Credits already promised to batches that have not been submitted yet (their extracts will
 * each take one when their turn comes): an order is accepted only if the balance covers them too.
 */
export async function reservedCredits(prisma: PrismaClient, account: string): Promise<number> {
  return prisma.cfExtract.count({ where: { portalAccount: account, status: { in: ['pending', 'cart'] }, submitIntentAt: null } });
}

export interface ListFilter {
  limit: number;
  offset: number;
  status?: string;
  userId?: string;
  nrCadastral?: string;
  siruta?: number;
  orderId?: string;
}

export async function listExtracts(prisma: PrismaClient, f: ListFilter, opts: { hidePersonal: boolean }) {
  const where: Prisma.CfExtractWhereInput = {
    // What an administrator must check at the portal: submits not listed yet, and batches that failed after their submit.
    ...(f.status === 'reconcile' ? { reconcileAt: { not: null }, status: { in: [...IN_FLIGHT_STATUSES, 'failed'] } } : f.status ? { status: f.status } : {}),
    ...(f.userId ? { userId: f.userId } : {}),
    ...(f.nrCadastral ? { nrCadastral: f.nrCadastral } : {}),
    ...(f.siruta ? { siruta: f.siruta } : {}),
    ...(f.orderId ? { orderId: f.orderId } : {}),
  };
  const [rows, total] = await Promise.all([
    prisma.cfExtract.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: f.limit, skip: f.offset, select: LIST_SELECT }),
    prisma.cfExtract.count({ where }),
  ]);
  const now = new Date();
  return { items: (await withFileFlag(prisma, rows)).map((r) => extractView(r, { ...opts, now })), total };
}

/**
 * The state of one parcel's extract, whoever ordered it: the newest unfinished one, else the
 * newest valid one, else the newest of any other state (the e-pay tab's state line, spec 3.2).
 */
export async function parcelExtract(prisma: PrismaClient, p: { nrCadastral: string; siruta: number }, opts: { hidePersonal: boolean }) {
  const rows = await prisma.cfExtract.findMany({
    where: { nrCadastral: p.nrCadastral, siruta: p.siruta, status: { not: 'cancelled' } },
    orderBy: [{ version: 'desc' }, { createdAt: 'desc' }],
    take: 20,
    select: LIST_SELECT,
  });
  const now = new Date();
  const pick =
    rows.find((r) => (IN_FLIGHT_STATUSES as readonly string[]).includes(r.status)) ??
    rows.find((r) => uiState(r.status, r.expiresAt, now) === 'valid') ??
    rows[0];
  if (!pick) return null;
  return extractView((await withFileFlag(prisma, [pick]))[0], { ...opts, now });
}

/**
 * Cancels a pending extract (CONTRACT.md 3: pending → cancelled), by whoever ordered it or an
 * admin. One conditional statement: the pipeline claims an extract pending → cart with the same
 * kind of statement before it adds it to the portal's cart, so exactly one of the two wins and a
 * cancelled extract is never paid. Its credit is released (reservedCredits counts only pending
 * and cart extracts).
 */
export async function cancelExtract(prisma: PrismaClient, id: string, who: { userId: string; isAdmin: boolean; hidePersonal: boolean }): Promise<CfExtractView> {
  const e = await prisma.cfExtract.findUnique({ where: { id }, select: { userId: true, status: true } });
  if (!e) throw errors.notFound('Extrasul CF nu există.');
  if (e.userId !== who.userId && !who.isAdmin) throw errors.forbidden('Doar cel care a comandat extrasul sau un administrator îl poate anula.');
  const done = await prisma.cfExtract.updateMany({
    where: { id, status: 'pending', submitIntentAt: null },
    data: { status: 'cancelled', currentStep: null, error: null },
  });
  if (done.count === 0) {
    const now = await prisma.cfExtract.findUniqueOrThrow({ where: { id }, select: { status: true } });
    // Still pending here means its batch is being submitted: no longer waiting, whatever the column says.
    const state = now.status === 'pending' ? 'în curs de trimitere la portal' : (EXTRACT_STATUS_LABELS[now.status] ?? 'în lucru');
    throw errors.conflict('invalid_state', `Extrasul este ${state} și nu mai poate fi anulat: doar un extras care așteaptă în coadă se poate anula.`, { status: now.status });
  }
  const row = await prisma.cfExtract.findUniqueOrThrow({ where: { id }, select: LIST_SELECT });
  return extractView((await withFileFlag(prisma, [row]))[0], { hidePersonal: who.hidePersonal });
}

/** The portal account a batch was queued under (null when the batch has no rows or no account). */
export async function batchAccount(prisma: PrismaClient, orderId: string): Promise<string | null> {
  const row = await prisma.cfExtract.findFirst({ where: { orderId }, select: { portalAccount: true } });
  return row?.portalAccount ?? null;
}

export async function getExtract(prisma: PrismaClient, id: string) {
  return prisma.cfExtract.findUnique({ where: { id }, select: { ...LIST_SELECT, pdfData: true } });
}

/** The e-mail and name of each of these users the users directory knows (the notifications' `directoryNames`). */
export type DirectoryNames = (ids: readonly string[]) => Promise<Map<string, { email: string; name: string | null }>>;

/** Who ordered extracts, busiest first, named from the users directory (the admin's list filter). */
export async function orderers(prisma: PrismaClient, directoryNames: DirectoryNames): Promise<Array<{ userId: string; email: string | null; name: string | null; count: number }>> {
  const groups = await prisma.cfExtract.groupBy({ by: ['userId'], where: { userId: { not: null } }, _count: { _all: true } });
  const byId = await directoryNames(groups.map((g) => g.userId!));
  return groups
    .map((g) => ({ userId: g.userId!, email: byId.get(g.userId!)?.email ?? null, name: byId.get(g.userId!)?.name ?? null, count: g._count._all }))
    .sort((a, b) => b.count - a.count || (a.email ?? a.userId).localeCompare(b.email ?? b.userId));
}
