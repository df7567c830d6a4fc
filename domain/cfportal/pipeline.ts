/**
 * The steps of one CF batch (spec 3.2; docs/cf.md), each safe to run again after a crash: the
 * cfOrderBatch workflow calls them through the activities of activities/cfportal.ts. Exactly
 * once at the portal: cart items carry the batch id in their metadata (`reference`) and the
 * extract id (`note`), so a re-run finds what it already did; the submit first looks for the
 * batch among the portal's orders and only submits when it is not there.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { AppError } from '../errors';
import { contentDisposition } from '../storage/rules';
import { s3 } from '../storage/service';
import type { CartItem, CfportalClient } from './client';
import { CF_VALIDITY_MS, batchExtracts, failBatch, failBatchAfterError, setBatchStep, setExtract, stepNo } from './extracts';
import type { ReadyExtract } from './rules';

export interface PipelineDeps {
  prisma: PrismaClient;
  client: CfportalClient;
}

/** The balance does not cover the batch: nothing was added to the cart (CONTRACT.md 402). */
export class InsufficientCreditsError extends AppError {
  constructor(credits: number, needed: number) {
    super(402, 'insufficient_credits', `Credit insuficient la portalul de extrase: ${credits} disponibile, ${needed} necesare.`, {
      extra: { credits, needed },
    });
    this.name = 'InsufficientCreditsError';
  }
}

/** The batch's records are gone (deleted or never written): nothing to do. */
export class BatchNotFoundError extends Error {
  constructor(orderId: string) {
    super(`CF batch ${orderId} has no extracts`);
    this.name = 'BatchNotFoundError';
  }
}

export interface BatchPlan {
  extractIds: string[];
  /** The submit intent is already recorded: the cart steps are done, go straight to submit. */
  submitIntent: boolean;
  /** Already submitted: the portal's order id. */
  portalOrderId: string | null;
  /** Foreign cart items removed before anything was added. */
  removedForeign: number;
}

const isOurs = (orderId: string) => (i: CartItem) => i.metadata?.reference === orderId;

/**
 * Step 1: the batch's state, then (unless it already got past the cart) credits checked and the
 * cart cleared of foreign items BEFORE anything is added. No credit, no cart change.
 */
export async function prepareBatch({ prisma, client }: PipelineDeps, orderId: string): Promise<BatchPlan> {
  const rows = await batchExtracts(prisma, orderId);
  if (rows.length === 0) throw new BatchNotFoundError(orderId);
  const live = rows.filter((r) => r.status !== 'failed' && r.status !== 'cancelled');
  const portalOrderId = rows.find((r) => r.portalOrderId)?.portalOrderId ?? null;
  const submitIntent = rows.some((r) => r.submitIntentAt !== null);
  const plan = { extractIds: live.map((r) => r.id), submitIntent, portalOrderId, removedForeign: 0 };
  if (submitIntent || live.length === 0) return plan;
  await setBatchStep(prisma, orderId, 'credits');
  const credits = await client.credits();
  if (credits < live.length) {
    const err = new InsufficientCreditsError(credits, live.length);
    await failBatch(prisma, orderId, err.message);
    throw err;
  }
  for (const item of await client.cart()) {
    if (isOurs(orderId)(item)) continue;
    // Leftovers of someone else (a manual order at the portal, a batch that failed before its
    // submit): they must not ride along in our order, nor be paid by it.
    await client.removeFromCart(item.itemId);
    plan.removedForeign++;
  }
  return plan;
}

/**
 * Steps 2 and 3 for one parcel: add to cart, save metadata. The extract is first claimed
 * pending → cart by one conditional statement (a cancel races on the same row, so a cancelled
 * extract never reaches the cart); null when it was cancelled meanwhile. A re-run finds its item
 * by the extract id in the metadata, or adopts an unlabelled item of the same parcel (added just
 * before a crash, metadata not saved yet).
 */
export async function addParcelToCart({ prisma, client }: PipelineDeps, orderId: string, extractId: string, cart?: CartItem[]): Promise<string | null> {
  const claimed = await prisma.cfExtract.updateMany({
    where: { id: extractId, status: { in: ['pending', 'cart'] }, submitIntentAt: null },
    data: { status: 'cart' },
  });
  if (claimed.count === 0) return null;
  const e = await prisma.cfExtract.findUniqueOrThrow({ where: { id: extractId } });
  const items = cart ?? (await client.cart());
  const mine = items.find((i) => i.metadata?.note === extractId);
  if (mine) {
    if (e.portalItemId !== mine.itemId) await setExtract(prisma, extractId, 'metadata', { status: 'cart', portalItemId: mine.itemId });
    return mine.itemId;
  }
  const same = (i: CartItem) => !i.metadata && i.uatId === e.siruta && i.cadastralNumber === e.nrCadastral;
  const item = items.find(same) ?? (await client.addToCart({ countyId: e.workspacePk!, uatId: e.siruta!, cadastralNumber: e.nrCadastral }));
  await setExtract(prisma, extractId, 'cart', { status: 'cart', portalItemId: item.itemId });
  await client.saveMetadata(item.itemId, { reference: orderId, note: extractId });
  await setExtract(prisma, extractId, 'metadata');
  return item.itemId;
}

/**
 * Steps 1 to 4 in one activity: credits and foreign items checked (prepareBatch), every parcel
 * added and labelled (the record updated after each), then the intent to submit recorded. Safe
 * to run again: labelled items are found, the intent once recorded short-circuits everything
 * (from then on nothing is added to the cart again).
 */
export async function fillCart(deps: PipelineDeps, orderId: string, signal?: AbortSignal): Promise<BatchPlan> {
  const plan = await prepareBatch(deps, orderId);
  if (plan.submitIntent || plan.extractIds.length === 0) return plan;
  const cart = (await deps.client.cart()).filter(isOurs(orderId));
  const added: string[] = [];
  for (const id of plan.extractIds) {
    // Stopped (an attempt given up on): the next attempt reads the cart afresh and goes on.
    signal?.throwIfAborted();
    if ((await addParcelToCart(deps, orderId, id, cart)) !== null) added.push(id);
  }
  // Every extract was cancelled before its turn: nothing is in the cart, nothing to submit.
  if (added.length === 0) return { ...plan, extractIds: [] };
  await recordSubmitIntent(deps, orderId);
  return { ...plan, extractIds: added, submitIntent: true };
}

/** Step 4: the intent to submit, in the store before the submit call (never undone). */
export async function recordSubmitIntent({ prisma }: PipelineDeps, orderId: string): Promise<void> {
  await prisma.cfExtract.updateMany({ where: { orderId, submitIntentAt: null, status: 'cart' }, data: { submitIntentAt: new Date() } });
  await setBatchStep(prisma, orderId, 'submit');
}

/** Submitted (the portal's order id known), or sent and not listed by the portal yet. */
export type SubmitOutcome = { state: 'submitted'; portalOrderId: string; reconciled: boolean } | { state: 'unlisted' };

/**
 * Step 5: ONE submit of the whole order. Every attempt first reconciles with the portal's order
 * list: if the batch is already an order there (the answer of an earlier submit was lost, or the
 * worker died right after it), that order is adopted. Nothing is ever added to the cart here
 * (the submit intent is recorded). A submit is sent only while the batch's own items are still
 * in the cart: the portal empties the cart when it takes a submit, so items still there mean no
 * earlier submit went through. A sent submit whose items left the cart but which the portal does
 * not list yet answers `unlisted`: the workflow waits for the listing, bounded, and past that
 * marks the batch for an admin's reconciliation; it never submits again.
 */
export async function submitBatch(deps: PipelineDeps, orderId: string): Promise<SubmitOutcome> {
  const { prisma, client } = deps;
  const rows = await batchExtracts(prisma, orderId);
  const known = rows.find((r) => r.portalOrderId)?.portalOrderId;
  if (known) return { state: 'submitted', portalOrderId: known, reconciled: true };
  const existing = (await client.orders()).find((o) => o.items.some(isOurs(orderId)));
  if (existing) {
    await markSubmitted(prisma, orderId, existing.orderId);
    return { state: 'submitted', portalOrderId: existing.orderId, reconciled: true };
  }
  const cart = await client.cart();
  const ours = cart.filter(isOurs(orderId));
  const sent = rows.some((r) => r.submitSentAt !== null);
  if (ours.length === 0) {
    if (sent) return { state: 'unlisted' };
    const message = 'Articolele comenzii au dispărut din coșul portalului înainte de trimitere; nu s-a plătit nimic.';
    await failBatch(prisma, orderId, message);
    throw new AppError(409, 'cfportal_cart_lost', message);
  }
  // Foreign items would ride along in our order and be paid by it.
  for (const item of cart.filter((i) => !isOurs(orderId)(i))) await client.removeFromCart(item.itemId);
  const live = rows.filter((r) => r.status !== 'failed' && r.status !== 'cancelled');
  const missing = live.filter((r) => !ours.some((i) => i.metadata?.note === r.id));
  if (missing.length) {
    await prisma.cfExtract.updateMany({
      where: { id: { in: missing.map((r) => r.id) } },
      data: { status: 'failed', error: 'Articolul a dispărut din coșul portalului înainte de trimitere; nu s-a plătit.' },
    });
  }
  // Written before the call: a retry after a lost answer knows a submit may have gone through.
  await prisma.cfExtract.updateMany({ where: { orderId }, data: { submitSentAt: new Date() } });
  const ans = await client.submit();
  if (ans.status === 402) {
    const credits = await client.credits();
    const err = new InsufficientCreditsError(credits, ours.length);
    await failBatch(prisma, orderId, err.message);
    throw err;
  }
  if (ans.status >= 200 && ans.status < 300 && !ans.orderId) return { state: 'unlisted' };
  if (ans.status >= 400 || !ans.orderId) throw new AppError(502, 'upstream_error', `Portalul de extrase a refuzat comanda: ${ans.message ?? ans.status}`);
  await markSubmitted(prisma, orderId, ans.orderId);
  return { state: 'submitted', portalOrderId: ans.orderId, reconciled: false };
}

async function markSubmitted(prisma: PrismaClient, orderId: string, portalOrderId: string): Promise<void> {
  await setBatchStep(prisma, orderId, 'poll', { status: 'submitted', portalOrderId, submittedAt: new Date(), reconcileAt: null });
}

export const RECONCILE_MESSAGE = 'Portalul nu a listat încă comanda trimisă; un administrator verifică dacă a fost plătită. Nu se trimite din nou.';

/** The portal did not list a sent submit within the wait: the batch is marked for reconciliation (still in flight, so nobody orders its parcels again). */
export async function markForReconciliation({ prisma }: PipelineDeps, orderId: string): Promise<{ account: string | null; parcels: string[]; sentAt: string | null }> {
  await prisma.cfExtract.updateMany({
    where: { orderId, status: { in: ['pending', 'cart'] }, reconcileAt: null },
    data: { reconcileAt: new Date(), error: RECONCILE_MESSAGE },
  });
  const rows = await batchExtracts(prisma, orderId);
  return {
    account: rows[0]?.portalAccount ?? null,
    parcels: rows.map((r) => `${r.nrCadastral} (SIRUTA ${r.siruta ?? '?'})`),
    sentAt: rows.find((r) => r.submitSentAt)?.submitSentAt?.toISOString() ?? null,
  };
}

/** Step 6: one status poll. */
export async function pollBatch({ prisma, client }: PipelineDeps, orderId: string, portalOrderId: string): Promise<'processing' | 'done'> {
  const o = await client.order(portalOrderId);
  await setBatchStep(prisma, orderId, 'poll', { status: 'processing' });
  return o.status;
}

/** How long one status activity keeps polling before handing the wait back to a workflow timer. */
export const POLL_WINDOW_MS = 60_000;

/**
 * Step 6: polls until the order is done, within POLL_WINDOW_MS; longer waits go back to the
 * workflow ('processing'), which sleeps on a durable timer and asks again.
 */
export async function awaitOrder(deps: PipelineDeps, orderId: string, portalOrderId: string, pollIntervalMs: number): Promise<'processing' | 'done'> {
  const deadline = Date.now() + POLL_WINDOW_MS;
  for (;;) {
    if ((await pollBatch(deps, orderId, portalOrderId)) === 'done') return 'done';
    if (Date.now() + pollIntervalMs > deadline) return 'processing';
    await new Promise((r) => setTimeout(r, pollIntervalMs));
  }
}

export interface DocumentToFetch {
  extractId: string;
  documentId: string;
}

/**
 * Step 7: the order's documents, matched back to the batch's parcels by cadastral number (and
 * UAT, since cadastral numbers repeat across UATs).
 */
export async function matchDocuments({ prisma, client }: PipelineDeps, orderId: string, portalOrderId: string): Promise<DocumentToFetch[]> {
  const docs = await client.documents(portalOrderId);
  const rows = (await batchExtracts(prisma, orderId)).filter((r) => r.status !== 'failed' && r.status !== 'cancelled');
  const out: DocumentToFetch[] = [];
  const used = new Set<string>();
  for (const r of rows) {
    const d = docs.find((x) => !used.has(x.documentId) && x.cadastralNumber === r.nrCadastral && x.uatId === r.siruta);
    if (!d) {
      await prisma.cfExtract.update({ where: { id: r.id }, data: { status: 'failed', error: 'Portalul nu a emis documentul pentru această parcelă.' } });
      continue;
    }
    used.add(d.documentId);
    if (r.status !== 'completed') {
      await setExtract(prisma, r.id, 'documents', { status: 'downloading', portalDocumentId: d.documentId, cfNumber: d.cfNumber });
    }
    out.push({ extractId: r.id, documentId: d.documentId });
  }
  return out;
}

export const cfObjectKey = (orderId: string, extractId: string) => `cf/${orderId}/${extractId}.pdf`;

/** The download name: cadastral number and UAT, diacritics kept (the route writes RFC 6266). */
export function extractFileName(e: { nrCadastral: string; uatName: string | null; version: number }): string {
  const uat = e.uatName ? `_${e.uatName.replace(/[\\/:*?"<>|\s]+/g, '-')}` : '';
  return `Extras_CF_${e.nrCadastral.replace(/[\\/:*?"<>|\s]+/g, '-')}${uat}_v${e.version}.pdf`;
}

/**
 * Steps 8 and 9 for one document: download the PDF, store it in S3, complete the extract with
 * its validity (issuedAt is the workflow's clock, so the 30 days follow Temporal's time).
 */
export async function storeDocument(
  { prisma, client }: PipelineDeps,
  doc: DocumentToFetch,
  issuedAtMs: number,
): Promise<{ userId: string | null; nrCadastral: string; uatName: string | null; bytes: number }> {
  const e = await prisma.cfExtract.findUniqueOrThrow({ where: { id: doc.extractId } });
  if (e.status === 'completed' && e.s3Key) return { userId: e.userId, nrCadastral: e.nrCadastral, uatName: e.uatName, bytes: 0 };
  await setExtract(prisma, e.id, 'download');
  const pdf = await client.document(doc.documentId);
  const key = cfObjectKey(e.orderId ?? 'none', e.id);
  const documentName = extractFileName(e);
  await s3().send(
    new PutObjectCommand({
      Bucket: config.s3.buckets.cf,
      Key: key,
      Body: pdf,
      ContentType: 'application/pdf',
      ContentDisposition: contentDisposition(documentName),
    }),
  );
  const issuedAt = new Date(issuedAtMs);
  await setExtract(prisma, e.id, 'store', {
    status: 'completed',
    s3Key: key,
    documentName,
    issuedAt,
    expiresAt: new Date(issuedAtMs + CF_VALIDITY_MS),
    error: null,
  });
  return { userId: e.userId, nrCadastral: e.nrCadastral, uatName: e.uatName, bytes: pdf.length };
}

export type StoredExtract = ReadyExtract;

/** Steps 7 to 9: documents matched to parcels, each downloaded and stored (its record completed). */
export async function fetchDocuments(deps: PipelineDeps, orderId: string, portalOrderId: string, issuedAtMs: number): Promise<StoredExtract[]> {
  const docs = await matchDocuments(deps, orderId, portalOrderId);
  const out: StoredExtract[] = [];
  for (const doc of docs) {
    const r = await storeDocument(deps, doc, issuedAtMs);
    out.push({ extractId: doc.extractId, userId: r.userId, nrCadastral: r.nrCadastral, uatName: r.uatName });
  }
  await deps.prisma.cfExtract.updateMany({ where: { orderId, status: 'completed' }, data: { currentStep: 'notify', stepNo: stepNo('notify') } });
  return out;
}

export async function finishBatch({ prisma }: PipelineDeps, orderId: string): Promise<void> {
  await prisma.cfExtract.updateMany({ where: { orderId, status: 'completed' }, data: { currentStep: 'done', stepNo: stepNo('done') } });
}

/** The batch job failed: see failBatchAfterError (extracts of a sent submit fail unsettled). */
export async function failBatchWith({ prisma }: PipelineDeps, orderId: string, message: string): Promise<{ unsettled: number }> {
  return failBatchAfterError(prisma, orderId, message);
}

/** The stored PDF of an extract, streamed (S3), or the legacy inline bytes. */
export async function openExtractPdf(e: { s3Key: string | null; pdfData: Uint8Array | null }): Promise<NodeJS.ReadableStream | Buffer | null> {
  if (e.s3Key) {
    const obj = await s3().send(new GetObjectCommand({ Bucket: config.s3.buckets.cf, Key: e.s3Key }));
    return obj.Body as NodeJS.ReadableStream;
  }
  return e.pdfData ? Buffer.from(e.pdfData) : null;
}

