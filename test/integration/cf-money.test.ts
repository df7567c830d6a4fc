/**
 * CF extracts safe with money (issue 26): the real app, PostgreSQL, MinIO, Temporal workers of
 * this run and the certificate portal simulator over HTTP (two accounts of it). What an office
 * checks: who may switch the paid account, which account paid for what (the portal's own truth
 * per account), that a parcel is never paid twice, that a slow portal does not make us submit
 * twice, that a pending extract can be cancelled and costs nothing, and who sees which orders.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closePool } from '../../domain/db/pool';
import { encryptSecret } from '../../domain/crypto/secretBox';
import { accountKey } from '../../domain/cfportal/session';
import { closeTemporalClient } from '../../temporal/client';
import { freshCadastral, sessions, someUats, startCfRig, until, type CfRig } from '../helpers/cfStack';
import type { TestSession } from '../helpers/session';

let rig: CfRig;
let who: Awaited<ReturnType<typeof sessions>>;
const uats = someUats(4, 10);
/** A second account of the portal, with its own cart and credits. */
let other: { username: string; password: string };

const call = (method: string, p: string, opts: { body?: unknown; as?: TestSession } = {}) => rig.api(method, p, opts.as ?? who.dan, opts.body);

const parcel = (i: number) => {
  const u = uats[i % uats.length];
  return { nrCadastral: freshCadastral(i), siruta: u.siruta, workspacePk: u.workspacePk };
};

async function batch(orderId: string): Promise<any[]> {
  return (await call('GET', `/api/cfportal/orders?orderId=${orderId}`, { as: who.ana })).body.items;
}
const batchDone = (orderId: string) => rig.batchDone(orderId, who.ana);
/** The report mail to the administrators queued under this key (the notifications module's `mailReport`). */
const adminReport = (key: string) =>
  until(
    'the report mail to the admins',
    async () => {
      const m = await rig.db.query<{ recipients: string[]; subject: string }>(`SELECT recipients, subject FROM mail_outbox WHERE idempotency_key = $1`, [`report:${key}`]);
      return m.rowCount ? m : null;
    },
    30_000,
    200,
  );
const truth = (account?: string) => rig.truth(account);
const submits = () => rig.requestCounts();

beforeAll(async () => {
  // Short waits: a sent submit unlisted for 2 s is handed to an admin (production: 10 minutes).
  rig = await startCfRig({ listingWaitMs: 2000 });
  who = await sessions(rig.db);
  other = { username: `cf-b-${rig.suffix}`, password: 'parola-b' };
  await rig.simJson('POST', '/__sim/accounts', { ...other, credits: 20 });
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(Object.values(who ?? {}).map((s) => s.end()));
  await rig?.stop();
  await closeTemporalClient();
  await closePool();
}, 60_000);

describe('with no worker running yet (every batch waits in its queue)', () => {
  let waiting: { orderId: string; extractId: string; p: ReturnType<typeof parcel> };

  test('only an admin may connect, switch or disconnect the portal account: 403 with the error body for anyone else', async () => {
    for (const body of [{ action: 'connect', ...other }, { action: 'disconnect' }]) {
      const r = await call('POST', '/api/cfportal/session', { body });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
    const view = await call('GET', '/api/cfportal/session');
    expect(view.body).toMatchObject({ connected: false, username: rig.credentials.username, source: 'configured' });
  });

  test('a switch of account while a batch waits is refused with 409 jobs_running naming the batch', async () => {
    const p = parcel(0);
    const r = await call('POST', '/api/cfportal/order', { body: p });
    expect(r.status).toBe(202);
    waiting = { orderId: r.body.orderId, extractId: r.body.extracts[0].id, p };
    expect(r.body.extracts[0]).toMatchObject({ status: 'pending', currentStep: 'queued' });

    const refused = await call('POST', '/api/cfportal/session', { body: { action: 'connect', ...other }, as: who.ana });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'jobs_running', runningJobs: [waiting.orderId], message: expect.stringContaining('în lucru') });
    const still = await call('GET', '/api/cfportal/credits');
    expect(still.body.account).toBe(accountKey(rig.credentials.username));
  });

  test('a second order of a parcel whose extract is unfinished is 409 order_in_progress with that extract, force or not', async () => {
    for (const force of [false, true]) {
      const r = await call('POST', '/api/cfportal/order', { body: { ...waiting.p, force }, as: who.ana });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ error: 'order_in_progress', extractId: waiting.extractId });
    }
  });

  test('two orders of one parcel sent at the same moment: exactly one is queued, the other is 409 order_in_progress', async () => {
    const p = parcel(1);
    const answers = await Promise.all([call('POST', '/api/cfportal/order', { body: p }), call('POST', '/api/cfportal/order', { body: p, as: who.ana })]);
    const ok = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0].body).toMatchObject({ error: 'order_in_progress', extractId: ok[0].body.extracts[0].id });
    const rows = await rig.db.query(`SELECT id FROM cf_extracts WHERE nr_cadastral = $1 AND siruta = $2`, [p.nrCadastral, p.siruta]);
    expect(rows.rows).toHaveLength(1);
  });

  test('a pending extract is cancelled by its orderer or an admin, nobody else; its credit is released; then it is not pending any more', async () => {
    const before = (await call('GET', '/api/cfportal/credits')).body.reserved as number;
    const mine = await call('POST', '/api/cfportal/order', { body: parcel(2) });
    const his = await call('POST', '/api/cfportal/order', { body: parcel(3), as: who.ion });
    expect((await call('GET', '/api/cfportal/credits')).body.reserved).toBe(before + 2);

    const id = mine.body.extracts[0].id;
    const stranger = await call('PATCH', `/api/cfportal/extracts/${id}`, { body: { status: 'cancelled' }, as: who.elena });
    expect(stranger.status).toBe(403);
    expect(stranger.body.error).toBe('forbidden');
    expect((await call('PATCH', `/api/cfportal/extracts/${id}`, { body: { status: 'completed' } })).status).toBe(400);
    const own = await call('PATCH', `/api/cfportal/extracts/${id}`, { body: { status: 'cancelled' } });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id, status: 'cancelled' });
    const again = await call('PATCH', `/api/cfportal/extracts/${id}`, { body: { status: 'cancelled' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'invalid_state', status: 'cancelled' });
    const byAdmin = await call('PATCH', `/api/cfportal/extracts/${his.body.extracts[0].id}`, { body: { status: 'cancelled' }, as: who.ana });
    expect(byAdmin.status).toBe(200);
    expect((await call('GET', '/api/cfportal/credits')).body.reserved).toBe(before);
    expect((await call('PATCH', '/api/cfportal/extracts/00000000-0000-4000-8000-000000000000', { body: { status: 'cancelled' } })).status).toBe(404);
    // The cancelled parcel may be ordered again at once.
    expect((await call('POST', '/api/cfportal/order', { body: { ...parcel(2), nrCadastral: mine.body.extracts[0].nrCadastral } })).status).toBe(202);
  });

  test('the account is switched behind the batch (as a switch racing the order would): the batch still runs as its own account', async () => {
    // What an account switch that won the race against the order leaves in the store: B connected.
    await rig.db.query(
      `INSERT INTO cfportal_sessions (id, username, credentials_encrypted, connected_at, updated_at) VALUES ($1, $2, $3, now(), now())
       ON CONFLICT (id) DO UPDATE SET username = $2, credentials_encrypted = $3, connected_at = now()`,
      [rig.accounts.slot, other.username, await encryptSecret(JSON.stringify(other))],
    );
    expect((await call('GET', '/api/cfportal/credits')).body).toMatchObject({ account: accountKey(other.username), credits: 20 });
    await rig.simJson('DELETE', '/__sim/requests');
    await rig.startWorkers();
    const done = await batchDone(waiting.orderId);
    expect(done[0]).toMatchObject({ status: 'completed', state: 'valid' });
    const a = await truth();
    const b = await truth(other.username);
    const ordered = (t: any) => t.orders.flatMap((o: any) => o.items.map((i: any) => i.cadastralNumber));
    expect(ordered(a)).toContain(waiting.p.nrCadastral);
    expect(ordered(b)).not.toContain(waiting.p.nrCadastral);
    expect(b).toMatchObject({ credits: 20, orders: [], cart: [] });
    expect((await submits())[`submit:${other.username}`]).toBeUndefined();
  }, 180_000);
});

describe('with the workers running', () => {
  test('an admin switches the account once nothing is in flight, and new orders go to the new account', async () => {
    await until(
      'every batch of the first account finished',
      async () => (await rig.db.query(`SELECT 1 FROM cf_extracts WHERE portal_account = $1 AND status IN ('pending','cart','submitted','processing','downloading')`, [accountKey(rig.credentials.username)])).rowCount === 0,
      120_000,
      300,
    );
    // The store still says B (the raced switch above): back to the configured account, then to B.
    const off = await call('POST', '/api/cfportal/session', { body: { action: 'disconnect' }, as: who.ana });
    expect(off.body).toMatchObject({ connected: false, source: 'configured', username: rig.credentials.username });
    const ok = await call('POST', '/api/cfportal/session', { body: { action: 'connect', ...other }, as: who.ana });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ connected: true, username: other.username, credits: 20 });
    const p = parcel(5);
    const r = await call('POST', '/api/cfportal/order', { body: p });
    expect(r.status).toBe(202);
    await batchDone(r.body.orderId);
    const b = await truth(other.username);
    expect(b.credits).toBe(19);
    expect(b.orders.flatMap((o: any) => o.items.map((i: any) => i.cadastralNumber))).toEqual([p.nrCadastral]);
    // Back to the configured account (nothing in flight).
    expect((await call('POST', '/api/cfportal/session', { body: { action: 'disconnect' }, as: who.ana })).body).toMatchObject({ source: 'configured' });
  }, 180_000);

  test('submit accepted but listed only after 6 s: ONE submit, the batch marked for reconciliation and the admins mailed, then adopted', async () => {
    await rig.simJson('DELETE', '/__sim/requests');
    const creditsBefore = (await truth()).credits;
    await rig.simJson('POST', '/__sim/faults', { submitListedAfterSeconds: 6 });
    let orderId = '';
    try {
      const r = await call('POST', '/api/cfportal/order', { body: { parcels: [parcel(6), parcel(7)] } });
      expect(r.status).toBe(202);
      orderId = r.body.orderId;
      const flagged = await until(
        'the batch marked for reconciliation',
        async () => {
          const items = await batch(orderId);
          return items.every((e) => e.reconcileAt !== null) ? items : null;
        },
        60_000,
        200,
      );
      expect(flagged.every((e) => e.state === 'processing' && e.currentStep === 'submit')).toBe(true);
      // While it waits, nobody pays for these parcels again.
      expect((await call('POST', '/api/cfportal/order', { body: { ...parcel(6), nrCadastral: flagged[0].nrCadastral, siruta: flagged[0].siruta, force: true } })).body.error).toBe(
        'order_in_progress',
      );
      const mail = await adminReport(`cf-reconcile:${orderId}`);
      expect(mail.rows).toHaveLength(1);
      expect(mail.rows[0].recipients).toContain('ana@birou.ro');
      expect(mail.rows[0].subject).toContain(orderId);
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
    const done = await batchDone(orderId);
    expect(done.every((e) => e.status === 'completed' && e.reconcileAt === null)).toBe(true);
    expect((await submits()).submit).toBe(1);
    const t = await truth();
    expect(t.credits).toBe(creditsBefore - 2);
    expect(t.cart).toEqual([]);
  }, 180_000);

  test('a batch that fails after its submit was sent is unsettled: nobody orders its parcel again but an admin with force, and the admins are told', async () => {
    await rig.simJson('DELETE', '/__sim/requests');
    const p = parcel(8);
    // The submit is taken (credits spent) but its answer is lost and it is not listed: the batch waits.
    await rig.simJson('POST', '/__sim/faults', { submitListedAfterSeconds: 3600, sessionTtlSeconds: 1 });
    let orderId = '';
    try {
      const r = await call('POST', '/api/cfportal/order', { body: { parcels: [p] } });
      expect(r.status).toBe(202);
      orderId = r.body.orderId;
      await until('the submit sent', async () => ((await submits()).submit === 1 ? true : null), 60_000, 200);
      // Then the account's password changes at the portal: the next sign-in is refused, a permanent failure.
      await rig.simJson('POST', '/__sim/accounts', { username: rig.credentials.username, password: 'parola-schimbata' });
      const failed = await until(
        'the batch to fail',
        async () => {
          const items = await batch(orderId);
          return items.every((e) => e.status === 'failed') ? items : null;
        },
        120_000,
        300,
      );
      expect(failed[0]).toMatchObject({ reconcileAt: expect.any(String), error: expect.stringContaining('poate fi deja plătită') });
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
      await rig.simJson('POST', '/__sim/accounts', { username: rig.credentials.username, password: rig.credentials.password });
    }
    // Before, a failed extract freed its parcel: the next order, anyone's, paid for it a second time.
    for (const as of [who.dan, who.ion]) {
      const again = await call('POST', '/api/cfportal/order', { as, body: { parcels: [p], force: true } });
      expect({ status: again.status, error: again.body.error }).toEqual({ status: 409, error: 'order_unsettled' });
      expect(again.body.message).toContain(p.nrCadastral);
    }
    const listed = await call('GET', '/api/cfportal/orders?status=reconcile', { as: who.ana });
    expect(listed.body.items.map((e: { orderId: string }) => e.orderId)).toContain(orderId);
    const mail = await adminReport(`cf-unsettled:${orderId}`);
    expect(mail.rows[0].recipients).toContain('ana@birou.ro');
    // An administrator who checked at the portal orders it again, with force.
    const settled = await call('POST', '/api/cfportal/order', { as: who.ana, body: { parcels: [p], force: true } });
    expect(settled.status).toBe(202);
    expect((await batchDone(settled.body.orderId)).every((e) => e.status === 'completed')).toBe(true);
  }, 240_000);

  test('an order whose queue could not be started fails its waiting extracts, unpaid: its parcel is free again and its credits no longer reserved', async () => {
    const { abandonBatch, reservedCredits } = await import('../../domain/cfportal/extracts');
    const { getPrisma } = await import('../../domain/db/prisma');
    const prisma = getPrisma();
    const account = `cf-abandon-${rig.suffix}`;
    const orderId = `abandon-${rig.suffix}`;
    const [waiting, taken] = [parcel(9), parcel(10)];
    // As the route writes a batch before it starts the queue; one extract the queue already took.
    await prisma.cfExtract.createMany({
      data: [
        { orderId, nrCadastral: waiting.nrCadastral, siruta: waiting.siruta, workspacePk: waiting.workspacePk, status: 'pending', portalAccount: account, userId: who.dan.data.user.id },
        { orderId, nrCadastral: taken.nrCadastral, siruta: taken.siruta, workspacePk: taken.workspacePk, status: 'cart', portalAccount: account, userId: who.dan.data.user.id },
      ],
    });
    expect(await reservedCredits(prisma, account)).toBe(2);
    expect(await abandonBatch(prisma, orderId)).toBe(1);
    const rows = await prisma.cfExtract.findMany({ where: { orderId }, orderBy: { nrCadastral: 'asc' }, select: { nrCadastral: true, status: true } });
    expect(Object.fromEntries(rows.map((r) => [r.nrCadastral, r.status]))).toEqual({ [waiting.nrCadastral]: 'failed', [taken.nrCadastral]: 'cart' });
    expect(await reservedCredits(prisma, account)).toBe(1);
    // Its parcel may be ordered again at once (it was 409 order_in_progress for good).
    const again = await call('POST', '/api/cfportal/order', { body: { parcels: [waiting] } });
    expect(again.status).toBe(202);
    await batchDone(again.body.orderId);
    await prisma.cfExtract.deleteMany({ where: { orderId } });
  }, 120_000);

  test('the orders list is the caller’s own, paged; an admin sees everyone’s and filters by user; a parcel’s state is everyone’s', async () => {
    const dans = await call('GET', '/api/cfportal/orders?limit=2&offset=0');
    expect(dans.body.items).toHaveLength(2);
    expect(dans.body.total).toBeGreaterThan(2);
    expect(dans.body.items.every((e: any) => e.userId === who.dan.data.user.id)).toBe(true);
    const page2 = await call('GET', '/api/cfportal/orders?limit=2&offset=2');
    expect(page2.body.items.map((e: any) => e.id)).not.toEqual(dans.body.items.map((e: any) => e.id));

    const elenas = await call('GET', '/api/cfportal/orders?limit=100', { as: who.elena });
    expect(elenas.body.items.every((e: any) => e.userId === who.elena.data.user.id)).toBe(true);
    expect((await call('GET', `/api/cfportal/orders?userId=${who.dan.data.user.id}`, { as: who.elena })).status).toBe(403);

    const filtered = await call('GET', `/api/cfportal/orders?userId=${who.dan.data.user.id}&limit=500`, { as: who.ana });
    expect(filtered.body.total).toBe(dans.body.total);
    const orderers = await call('GET', '/api/cfportal/orderers', { as: who.ana });
    expect(orderers.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ userId: who.dan.data.user.id, email: 'dan@birou.ro' })]));
    expect((await call('GET', '/api/cfportal/orderers')).status).toBe(403);

    // Dan's valid extract is the parcel's state for Elena too, without its CF number.
    const valid = (await call('GET', '/api/cfportal/orders?status=completed&limit=1')).body.items[0];
    expect(valid.state).toBe('valid');
    const state = await call('GET', `/api/cfportal/parcel?nrCad=${valid.nrCadastral}&siruta=${valid.siruta}`, { as: who.elena });
    expect(state.body.extract).toMatchObject({ id: valid.id, state: 'valid', cfNumber: null });
    expect((await call('GET', `/api/cfportal/parcel?nrCad=${freshCadastral(90)}&siruta=${valid.siruta}`)).body).toEqual({ extract: null });
  });

  test('catalog_hit names each valid extract with its PDF link', async () => {
    const dans = await call('GET', '/api/cfportal/orders?status=completed&limit=1');
    const e = dans.body.items[0];
    const hit = await call('POST', '/api/cfportal/order', { body: { nrCadastral: e.nrCadastral, siruta: e.siruta, workspacePk: uats[0].workspacePk } });
    expect(hit.status).toBe(409);
    expect(hit.body).toMatchObject({ error: 'catalog_hit', hits: [expect.objectContaining({ extractId: e.id, downloadUrl: e.downloadUrl })] });
  });
});
