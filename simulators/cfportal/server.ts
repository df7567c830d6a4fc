/**
 * The certificate portal simulator (EXTERNAL-SERVICES.md, cfportal): accounts with credits (one
 * from the options, more through `/__sim/accounts`), ONE shared cart per account (items added by
 * two orders at once really mix), add-to-cart, save
 * metadata, submit, order status (processing for a few polls, then done), documents and real PDF
 * downloads naming the cadastral number, the UAT and the CF number. County and UAT ids are the
 * land-registry workspacePk and SIRUTA. Paths are documented in simulators/cfportal/README.md.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { simSettings } from '../shared/settings';
import { Nomenclature } from '../landreg/nomenclature';
import { listenSimulator, simulatorApp } from '../shared/app';
import { SimControl } from '../shared/control';
import { buildPdf } from '../shared/pdf';
import { Prng, hashSeed } from '../shared/prng';
import { Sessions } from '../shared/sessions';

export const CF_API = '/cf/api';
export const CF_SESSION_COOKIE = 'CFSESSION';

export interface CfportalSimOptions {
  port?: number;
  host?: string;
  seed?: number;
  credits?: number;
  pollsUntilDone?: number;
  username?: string;
  password?: string;
  sessionTtlSeconds?: number;
  dataDir?: string;
}

export interface CfportalSimulator {
  url: string;
  close(): Promise<void>;
}

interface CartItem {
  itemId: string;
  countyId: number;
  uatId: number;
  cadastralNumber: string;
  addedAt: string;
  /** Saved by the client after adding (save metadata); the service keeps its batch reference here. */
  metadata: { reference?: string; note?: string } | null;
}

interface Order {
  orderId: string;
  submittedAt: string;
  polls: number;
  /** Epoch ms from which the order is listed (the `submitListedAfterSeconds` fault). */
  listedFrom: number;
  items: Array<CartItem & { cfNumber: string; documentId: string }>;
}

/** One portal account: its password, credits, cart and orders. */
interface Account {
  password: string;
  credits: number;
  cart: CartItem[];
  orders: Order[];
}

const itemBody = z.object({
  countyId: z.coerce.number().int().positive(),
  uatId: z.coerce.number().int().positive(),
  cadastralNumber: z.string().trim().min(1).max(50),
});
const metadataBody = z.object({ reference: z.string().max(200).optional(), note: z.string().max(500).optional() });
const creditsBody = z.object({ credits: z.number().int().min(0), account: z.string().min(1).max(200).optional() });
const accountBody = z.object({ username: z.string().min(1).max(200), password: z.string().min(1).max(200), credits: z.number().int().min(0).optional() });

function fail(res: Response, status: number, message: string, error = status === 404 ? 'Not Found' : 'Bad Request') {
  res.status(status).json({ status, error, message });
}

export function createCfportalApp(opts: CfportalSimOptions = {}) {
  const nom = new Nomenclature(opts.dataDir ?? simSettings.landreg.dataDir);
  const username = opts.username ?? simSettings.cfportal.username;
  const password = opts.password ?? simSettings.cfportal.password;
  const startCredits = opts.credits ?? simSettings.cfportal.credits;
  const pollsUntilDone = opts.pollsUntilDone ?? simSettings.cfportal.pollsUntilDone;
  const defaultTtl = opts.sessionTtlSeconds ?? simSettings.cfportal.sessionTtlSeconds;
  let seed = opts.seed ?? simSettings.cfportal.seed;

  const fresh = (pw: string, credits: number): Account => ({ password: pw, credits, cart: [], orders: [] });
  const accounts = new Map<string, Account>([[username, fresh(password, startCredits)]]);
  let nextId = 1;
  /** The signed-in account of a call (set by the session check). */
  const acct = (res: Response) => accounts.get(res.locals.account as string)!;
  const listed = (o: Order) => Date.now() >= o.listedFrom;
  const sessions = new Sessions();
  const control = new SimControl('Portalul de extrase de carte funciară');
  const ttl = () => control.faults.sessionTtlSeconds ?? defaultTtl;

  /** The CF number of a parcel: deterministic from (seed, UAT, cadastral number). */
  const cfNumberOf = (uatId: number, cad: string) => String(new Prng(hashSeed(seed, 'cf', uatId, cad)).int(20_000, 999_999));

  const app = simulatorApp(control);

  app.use(
    '/__sim',
    control.router({
      onReset: (body) => {
        if (body.seed !== undefined) seed = Number(body.seed) || seed;
        accounts.clear();
        accounts.set(username, fresh(password, startCredits));
        sessions.clear();
      },
      extend: (r) => {
        // The whole truth of one account (default: the options' one), listed or not yet.
        r.get('/truth', (req, res) => {
          const a = accounts.get(typeof req.query.account === 'string' ? req.query.account : username);
          if (!a) return void fail(res, 404, 'Cont inexistent.');
          res.json({
            credits: a.credits,
            orders: a.orders.map((o) => ({ id: o.orderId, submittedAt: o.submittedAt, status: o.polls >= pollsUntilDone ? 'done' : 'processing', listed: listed(o), items: o.items })),
            cart: a.cart,
          });
        });
        r.post('/credits', (req, res) => {
          const parsed = creditsBody.safeParse(req.body ?? {});
          if (!parsed.success) return void fail(res, 400, parsed.error.message);
          const a = accounts.get(parsed.data.account ?? username);
          if (!a) return void fail(res, 404, 'Cont inexistent.');
          a.credits = parsed.data.credits;
          res.json({ credits: a.credits });
        });
        // Another account of the portal (an office with two subscriptions), with its own cart.
        r.post('/accounts', (req, res) => {
          const parsed = accountBody.safeParse(req.body ?? {});
          if (!parsed.success) return void fail(res, 400, parsed.error.message);
          accounts.set(parsed.data.username, fresh(parsed.data.password, parsed.data.credits ?? startCredits));
          res.status(201).json({ username: parsed.data.username, credits: parsed.data.credits ?? startCredits });
        });
      },
    }),
  );

  const api = express.Router();
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  api.use(express.json({ limit: '64kb' }), form);

  api.post('/login', (req, res) => {
    const body = (req.body ?? {}) as Record<string, string>;
    const a = accounts.get(body.username);
    if (!a || body.password !== a.password) {
      return void fail(res, 401, 'Utilizator sau parolă greșită.', 'Unauthorized');
    }
    const id = sessions.create(body.username);
    res.cookie(CF_SESSION_COOKIE, id, { httpOnly: true, path: '/', sameSite: 'lax' });
    res.json({ authenticated: true, username: body.username, credits: a.credits });
  });
  api.post('/logout', (req, res) => {
    sessions.destroy(req.cookies?.[CF_SESSION_COOKIE]);
    res.clearCookie(CF_SESSION_COOKIE, { path: '/' });
    res.json({ loggedOut: true });
  });

  api.use((req: Request, res: Response, next: NextFunction) => {
    const who = sessions.touch(req.cookies?.[CF_SESSION_COOKIE], ttl());
    if (!who || !accounts.has(who)) {
      return void fail(res, 401, 'Sesiunea a expirat. Autentificați-vă din nou.', 'Unauthorized');
    }
    res.locals.account = who;
    next();
  });

  api.get('/account', (_req, res) => void res.json({ username: res.locals.account, credits: acct(res).credits }));
  api.get('/credits', (_req, res) => void res.json({ credits: acct(res).credits }));
  api.get('/counties', (_req, res) => {
    res.json(nom.counties.map((c) => ({ id: c.workspaceId, name: c.name })));
  });
  api.get('/counties/:countyId/uats', (req, res) => {
    const c = nom.county(Number(req.params.countyId));
    if (!c) return void fail(res, 404, 'Județ inexistent.');
    res.json(c.uats.map((u) => ({ id: u.siruta, name: u.name })));
  });
  const parcelOf = (countyId: number, uatId: number, cad: string) => {
    const u = nom.uat(uatId);
    if (!u || u.workspaceId !== countyId) return null;
    return { countyId, uatId, uatName: u.name, countyName: u.countyName, cadastralNumber: cad, cfNumber: cfNumberOf(uatId, cad) };
  };
  api.get('/search', (req, res) => {
    const parsed = itemBody.safeParse(req.query);
    if (!parsed.success) return void fail(res, 400, 'countyId, uatId și cadastralNumber sunt obligatorii.');
    const p = parcelOf(parsed.data.countyId, parsed.data.uatId, parsed.data.cadastralNumber);
    if (!p) return void fail(res, 404, 'UAT inexistent în județul indicat.');
    res.json({ found: true, ...p, price: 1 });
  });

  api.get('/cart', (_req, res) => void res.json({ items: acct(res).cart }));
  api.post('/cart/items', (req, res) => {
    const parsed = itemBody.safeParse(req.body ?? {});
    if (!parsed.success) return void fail(res, 400, 'countyId, uatId și cadastralNumber sunt obligatorii.');
    const { countyId, uatId, cadastralNumber } = parsed.data;
    if (!parcelOf(countyId, uatId, cadastralNumber)) return void fail(res, 404, 'UAT inexistent în județul indicat.');
    const item: CartItem = { itemId: `I${nextId++}`, countyId, uatId, cadastralNumber, addedAt: new Date().toISOString(), metadata: null };
    acct(res).cart.push(item);
    res.status(201).json(item);
  });
  api.put('/cart/items/:itemId/metadata', (req, res) => {
    const item = acct(res).cart.find((i) => i.itemId === req.params.itemId);
    if (!item) return void fail(res, 404, 'Articolul nu este în coș.');
    const parsed = metadataBody.safeParse(req.body ?? {});
    if (!parsed.success) return void fail(res, 400, parsed.error.message);
    item.metadata = parsed.data;
    res.json(item);
  });
  api.delete('/cart/items/:itemId', (req, res) => {
    const a = acct(res);
    const before = a.cart.length;
    a.cart = a.cart.filter((i) => i.itemId !== req.params.itemId);
    if (a.cart.length === before) return void fail(res, 404, 'Articolul nu este în coș.');
    res.json({ items: a.cart });
  });
  api.delete('/cart', (_req, res) => {
    acct(res).cart = [];
    res.json({ items: [] });
  });
  api.post('/cart/submit', (_req, res) => {
    const a = acct(res);
    control.hit('submit');
    control.hit(`submit:${res.locals.account as string}`);
    if (a.cart.length === 0) return void fail(res, 400, 'Coșul este gol.');
    if (a.credits < a.cart.length) {
      return void res.status(402).json({ status: 402, error: 'Payment Required', message: `Credit insuficient: ${a.credits} disponibile, ${a.cart.length} necesare.` });
    }
    a.credits -= a.cart.length;
    const lagSeconds = control.faults.submitListedAfterSeconds ?? 0;
    const order: Order = {
      orderId: `C${String(nextId++).padStart(8, '0')}`,
      submittedAt: new Date().toISOString(),
      polls: 0,
      listedFrom: Date.now() + lagSeconds * 1000,
      items: a.cart.map((i) => ({ ...i, cfNumber: cfNumberOf(i.uatId, i.cadastralNumber), documentId: `D${nextId++}` })),
    };
    a.orders.push(order);
    a.cart = [];
    // The slow-listing fault: the portal took the order, the client never hears so.
    if (lagSeconds > 0) return void res.status(504).type('html').send('<html><body><h1>504 Gateway Time-out</h1></body></html>');
    res.status(201).json({ orderId: order.orderId, submittedAt: order.submittedAt, items: order.items.length, credits: a.credits });
  });

  const view = (o: Order) => ({
    orderId: o.orderId,
    submittedAt: o.submittedAt,
    status: o.polls >= pollsUntilDone ? 'done' : 'processing',
    items: o.items.map(({ itemId, countyId, uatId, cadastralNumber, metadata }) => ({ itemId, countyId, uatId, cadastralNumber, metadata })),
  });
  /** An order of the signed-in account, once the portal lists it. */
  const orderOf = (res: Response, id: string) => acct(res).orders.find((x) => x.orderId === id && listed(x));
  api.get('/orders', (_req, res) => void res.json({ orders: acct(res).orders.filter(listed).map(view) }));
  api.get('/orders/:orderId', (req, res) => {
    const o = orderOf(res, req.params.orderId);
    if (!o) return void fail(res, 404, 'Comandă inexistentă.');
    // Each status poll brings the order closer to done (EXTERNAL-SERVICES.md: processing for a few polls).
    const v = view(o);
    o.polls++;
    res.json(v);
  });
  api.get('/orders/:orderId/documents', (req, res) => {
    const o = orderOf(res, req.params.orderId);
    if (!o) return void fail(res, 404, 'Comandă inexistentă.');
    if (o.polls < pollsUntilDone) return void fail(res, 409, 'Comanda este încă în procesare.', 'Conflict');
    res.json({
      documents: o.items.map((i) => ({
        documentId: i.documentId,
        itemId: i.itemId,
        countyId: i.countyId,
        uatId: i.uatId,
        cadastralNumber: i.cadastralNumber,
        cfNumber: i.cfNumber,
        fileName: `Extras_CF_${i.cfNumber}_${i.cadastralNumber}.pdf`,
      })),
    });
  });
  api.get('/documents/:documentId', (req, res) => {
    const o = acct(res).orders.find((x) => listed(x) && x.items.some((i) => i.documentId === req.params.documentId));
    const item = o?.items.find((i) => i.documentId === req.params.documentId);
    if (!o || !item) return void fail(res, 404, 'Document inexistent.');
    if (o.polls < pollsUntilDone) return void fail(res, 409, 'Documentul nu este încă emis.', 'Conflict');
    const uat = nom.uat(item.uatId)!;
    const pdf = buildPdf('Extras de carte funciară pentru informare', [
      `Carte funciară nr. ${item.cfNumber} ${uat.name}`,
      `Nr. cadastral ${item.cadastralNumber}`,
      `UAT ${uat.name} (SIRUTA ${uat.siruta}), județul ${uat.countyName}`,
      `Comanda ${o.orderId} din ${o.submittedAt}`,
      'Document generat de simulatorul portalului de extrase',
    ]);
    res.type('application/pdf').setHeader('Content-Disposition', `attachment; filename="Extras_CF_${item.cfNumber}.pdf"`);
    res.send(pdf);
  });

  app.use(CF_API, api);
  app.use((_req, res) => void fail(res, 404, 'Resursă inexistentă.'));
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ status: 500, error: 'Internal Server Error', message: err.message });
  });
  return app;
}

export async function startCfportalSimulator(opts: CfportalSimOptions = {}): Promise<CfportalSimulator> {
  const app = createCfportalApp(opts);
  const listening = await listenSimulator(app, opts.port ?? simSettings.cfportal.port, opts.host);
  return { ...listening };
}
