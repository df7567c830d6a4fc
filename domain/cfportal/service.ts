/**
 * The CF area's door (docs/architecture.md "Areas", docs/cf.md): the certificate-portal account,
 * ordering extracts, reading and cancelling them, the credits, the PDF and the admin diagnostic,
 * as the CF routes (api/routes/cfportal.ts) call them; the batch steps of the `cf-orders` queue's
 * activities, each run as the account its batch was queued under; and what other areas read of
 * the extracts (the digest's expiring ones, the map's newest one). Built once per process by
 * `domain/services.ts`, aimed at the portal and account slot of `outside` (a test: its simulator
 * and its own slot). Its pure rules and types are in `rules.ts`, its jobs' types in `jobTypes.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import { errors } from '../errors';
import type { NotificationsService } from '../notifications/service';
import {
  IN_FLIGHT_STATUSES,
  batchAccount,
  abandonBatch,
  cancelExtract,
  getExtract,
  listExtracts,
  orderers,
  parcelExtract,
  reservedCredits,
  type ListFilter,
} from './extracts';
import { expiringExtracts } from './lookups';
import { placeOrder, type OrderDoor, type OrderParcelInput, type Orderer } from './order';
import {
  BatchNotFoundError,
  awaitOrder,
  failBatchWith,
  fetchDocuments,
  fillCart,
  finishBatch,
  markForReconciliation,
  openExtractPdf,
  submitBatch,
  type PipelineDeps,
} from './pipeline';
import { accountKey, cfSessionView, cfportalClient, cfportalClientFor, configuredAccountSource, connectCfportal, disconnectCfportal } from './session';

export { CF_STEPS } from './extracts';
/** The activities tell a batch whose records are gone (never retried) from a failing step. */
export { BatchNotFoundError };
/** The map's extract state of a parcel (domain/geoportal/cfStatus.ts, which holds the pool, not the services). */
export { newestExtract } from './lookups';

type DiagnosticStep = 'login' | 'uats' | 'search' | 'order' | 'download';

/**
 * The portal's personal fields in the answers the diagnostic passes on: the land-book number, and
 * a document's name, which is made of it (`Extras_CF_<cf>_<cad>.pdf`). Withheld wherever they sit,
 * as the extracts' views withhold `cfNumber` (extracts.ts extractView).
 */
const PORTAL_PERSONAL_KEYS: ReadonlySet<string> = new Set(['cfNumber', 'fileName']);

/** A portal answer with its personal fields nulled, at any depth; never mutates. */
function withoutPersonalFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPersonalFields);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, PORTAL_PERSONAL_KEYS.has(k) ? null : withoutPersonalFields(v)]));
}

export interface CfportalDeps extends AreaDeps {
  /** The orderers' names, from the users directory. */
  notifications: Pick<NotificationsService, 'directoryNames'>;
}

export function createCfportalService({ store, outside, notifications }: CfportalDeps) {
  const { prisma, pool } = store;
  const accounts = outside.cfportalAccounts ?? configuredAccountSource();
  const baseUrl = outside.cfportalBaseUrl;
  /** A client for the account in use (connected, else configured). */
  const client = () => cfportalClient(prisma, pool, accounts, baseUrl);
  /** Every step of a batch runs as the account the batch was queued under, whatever is connected now. */
  const batch = async (orderId: string): Promise<PipelineDeps> => {
    const account = await batchAccount(prisma, orderId);
    if (!account) throw new BatchNotFoundError(orderId);
    return { prisma, client: cfportalClientFor(prisma, pool, account, accounts, baseUrl) };
  };
  /** One step of the admin diagnostic, the portal's answer as it is (diagnose applies the viewer rule). */
  const diagnoseStep = async (q: { step: DiagnosticStep; nrCad?: string; siruta?: number; workspacePk?: number }): Promise<Record<string, unknown>> => {
    const c = client();
    switch (q.step) {
      case 'login': {
        const s = await c.login();
        return { account: s.username, credits: s.credits };
      }
      case 'uats': {
        const counties = await c.counties();
        const county = counties.find((x) => x.id === q.workspacePk) ?? counties[0];
        const uats = county ? await c.uats(county.id) : [];
        return { counties: counties.length, county: county ?? null, uats: uats.length };
      }
      case 'search': {
        let countyId = q.workspacePk;
        let uatId = q.siruta;
        if (!countyId || !uatId) {
          const first = (await c.counties())[0];
          countyId = first.id;
          uatId = (await c.uats(first.id))[0].id;
        }
        return { result: await c.search({ countyId, uatId, cadastralNumber: q.nrCad ?? '1' }) };
      }
      case 'order': {
        // Read-only on purpose: the cart is shared with the running queue.
        const [cart, orders, credits] = await Promise.all([c.cart(), c.orders(), c.credits()]);
        return { cartItems: cart.length, orders: orders.length, lastOrder: orders.at(-1) ?? null, credits };
      }
      case 'download': {
        const last = (await c.orders()).filter((o) => o.status === 'done').at(-1);
        if (!last) return { documents: 0 };
        const docs = await c.documents(last.orderId);
        const pdf = docs[0] ? await c.document(docs[0].documentId) : null;
        return { orderId: last.orderId, documents: docs.length, firstPdfBytes: pdf?.length ?? 0 };
      }
    }
  };

  return {
    sessionView: () => cfSessionView(prisma, accounts),
    /** Signs in with the given (or current) credentials and makes them the account in use (admin). */
    connect: (creds: { username?: string; password?: string }) => connectCfportal(prisma, client(), accounts, creds),
    disconnect: () => disconnectCfportal(prisma, accounts),

    /** Writes the batch after the checks (duplicates, who orders for whom, credits read through `door`); the caller queues it. */
    placeOrder: (who: Orderer, order: { parcels: OrderParcelInput[]; force: boolean }, door?: OrderDoor) =>
      placeOrder({ prisma, db: pool, client: client(), accounts }, who, order, door),
    listExtracts: (filter: ListFilter, opts: { hidePersonal: boolean }) => listExtracts(prisma, filter, opts),
    orderers: () => orderers(prisma, notifications.directoryNames),
    parcelExtract: (parcel: { nrCadastral: string; siruta: number }, opts: { hidePersonal: boolean }) => parcelExtract(prisma, parcel, opts),
    cancelExtract: (id: string, who: { userId: string; isAdmin: boolean; hidePersonal: boolean }) => cancelExtract(prisma, id, who),
    /** The order's queue could not be started: see abandonBatch. */
    abandonOrder: (orderId: string) => abandonBatch(prisma, orderId),

    /** The live balance of the account in use, and what queued orders will still spend. */
    async credits() {
      const c = client();
      const account = accountKey(await c.account());
      const [credits, reserved] = await Promise.all([c.credits(), reservedCredits(prisma, account)]);
      return { account, credits, reserved, available: Math.max(0, credits - reserved), costPerExtract: 1 };
    },

    /** A completed extract's PDF (S3, or a legacy inline pdfData): 404 unknown or gone, 409 `cf_not_ready`. */
    async openExtract(id: string) {
      const e = await getExtract(prisma, id);
      if (!e) throw errors.notFound('Extrasul CF nu există.');
      if (e.status !== 'completed') {
        throw errors.conflict('cf_not_ready', (IN_FLIGHT_STATUSES as readonly string[]).includes(e.status) ? 'Extrasul CF este încă în lucru.' : 'Extrasul CF nu a fost emis.', {
          status: e.status,
        });
      }
      const body = await openExtractPdf(e);
      if (!body) throw errors.notFound('Fișierul extrasului nu mai există.');
      return { fileName: e.documentName ?? `cf-${e.id}.pdf`, body };
    },

    /**
     * The admin diagnostic of one portal step; spends no credit. The portal's answer goes through
     * the viewer rule like every other: CF numbers are null for a caller without the right (an
     * admin is no exception).
     */
    async diagnose(
      q: { step: DiagnosticStep; nrCad?: string; siruta?: number; workspacePk?: number },
      opts: { hidePersonal: boolean },
    ): Promise<Record<string, unknown>> {
      const answer = await diagnoseStep(q);
      return opts.hidePersonal ? (withoutPersonalFields(answer) as Record<string, unknown>) : answer;
    },

    // The batch steps (spec 3.2), one activity each (activities/cfportal.ts).
    fillCart: async (orderId: string, signal?: AbortSignal) => fillCart(await batch(orderId), orderId, signal),
    submitBatch: async (orderId: string) => submitBatch(await batch(orderId), orderId),
    markForReconciliation: async (orderId: string) => markForReconciliation(await batch(orderId), orderId),
    awaitOrder: async (orderId: string, portalOrderId: string, pollIntervalMs: number) => awaitOrder(await batch(orderId), orderId, portalOrderId, pollIntervalMs),
    fetchDocuments: async (orderId: string, portalOrderId: string, issuedAtMs: number) => fetchDocuments(await batch(orderId), orderId, portalOrderId, issuedAtMs),
    finishBatch: async (orderId: string) => finishBatch(await batch(orderId), orderId),
    failBatch: async (orderId: string, message: string) => failBatchWith(await batch(orderId), orderId, message),

    /** The user's completed extracts expiring within `days` days (the daily digest). */
    expiringExtracts: (userId: string, now: Date, days: number) => expiringExtracts(pool, userId, now, days),
  };
}

export type CfportalService = ReturnType<typeof createCfportalService>;
