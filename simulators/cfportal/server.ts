/**
 * The certificate portal simulator (EXTERNAL-SERVICES.md, cfportal): an account with credits,
 * ONE shared cart per account (items added by two orders at once really mix), add-to-cart, save
 * metadata, submit, order status (processing for a few polls, then done), documents and real PDF
 * downloads naming the cadastral number, the UAT and the CF number. County and UAT ids are the
 * land-registry workspacePk and SIRUTA. Paths are documented in simulators/cfportal/README.md.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { config } from '../../domain/config';
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
  items: Array<CartItem & { cfNumber: string; documentId: string }>;
}

const itemBody = z.object({
  countyId: z.coerce.number().int().positive(),
  uatId: z.coerce.number().int().positive(),
  cadastralNumber: z.string().trim().min(1).max(50),
});
const metadataBody = z.object({ reference: z.string().max(200).optional(), note: z.string().max(500).optional() });
const creditsBody = z.object({ credits: z.number().int().min(0) });

function fail(res: Response, status: number, message: string, error = status === 404 ? 'Not Found' : 'Bad Request') {
  res.status(status).json({ status, error, message });
}

export function createCfportalApp(opts: CfportalSimOptions = {}) {
  const nom = new Nomenclature(opts.dataDir ?? config.landreg.simDataDir);
  const username = opts.username ?? config.cfportal.username;
  const password = opts.password ?? config.cfportal.password;
  const startCredits = opts.credits ?? config.cfportal.simCredits;
  const pollsUntilDone = opts.pollsUntilDone ?? config.cfportal.simPollsUntilDone;
  const defaultTtl = opts.sessionTtlSeconds ?? config.cfportal.simSessionTtlSeconds;
  let seed = opts.seed ?? config.cfportal.simSeed;

  let credits = startCredits;
  let cart: CartItem[] = [];
  let orders: Order[] = [];
  let nextId = 1;
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
        credits = startCredits;
        cart = [];
        orders = [];
        sessions.clear();
      },
      extend: (r) => {
        r.get('/truth', (_req, res) => {
          res.json({
            credits,
            orders: orders.map((o) => ({ id: o.orderId, submittedAt: o.submittedAt, status: o.polls >= pollsUntilDone ? 'done' : 'processing', items: o.items })),
            cart,
          });
        });
        r.post('/credits', (req, res) => {
          const parsed = creditsBody.safeParse(req.body ?? {});
          if (!parsed.success) return void fail(res, 400, parsed.error.message);
          credits = parsed.data.credits;
          res.json({ credits });
        });
      },
    }),
  );

  const api = express.Router();
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  api.use(express.json({ limit: '64kb' }), form);

  api.post('/login', (req, res) => {
    const body = (req.body ?? {}) as Record<string, string>;
    if (body.username !== username || body.password !== password) {
      return void fail(res, 401, 'Utilizator sau parolă greșită.', 'Unauthorized');
    }
    const id = sessions.create(username);
    res.cookie(CF_SESSION_COOKIE, id, { httpOnly: true, path: '/', sameSite: 'lax' });
    res.json({ authenticated: true, username, credits });
  });
  api.post('/logout', (req, res) => {
    sessions.destroy(req.cookies?.[CF_SESSION_COOKIE]);
    res.clearCookie(CF_SESSION_COOKIE, { path: '/' });
    res.json({ loggedOut: true });
  });

  api.use((req: Request, res: Response, next: NextFunction) => {
    if (!sessions.touch(req.cookies?.[CF_SESSION_COOKIE], ttl())) {
      return void fail(res, 401, 'Sesiunea a expirat. Autentificați-vă din nou.', 'Unauthorized');
    }
    next();
  });

  api.get('/account', (_req, res) => void res.json({ username, credits }));
  api.get('/credits', (_req, res) => void res.json({ credits }));
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

  api.get('/cart', (_req, res) => void res.json({ items: cart }));
  api.post('/cart/items', (req, res) => {
    const parsed = itemBody.safeParse(req.body ?? {});
    if (!parsed.success) return void fail(res, 400, 'countyId, uatId și cadastralNumber sunt obligatorii.');
    const { countyId, uatId, cadastralNumber } = parsed.data;
    if (!parcelOf(countyId, uatId, cadastralNumber)) return void fail(res, 404, 'UAT inexistent în județul indicat.');
    const item: CartItem = { itemId: `I${nextId++}`, countyId, uatId, cadastralNumber, addedAt: new Date().toISOString(), metadata: null };
    cart.push(item);
    res.status(201).json(item);
  });
  api.put('/cart/items/:itemId/metadata', (req, res) => {
    const item = cart.find((i) => i.itemId === req.params.itemId);
    if (!item) return void fail(res, 404, 'Articolul nu este în coș.');
    const parsed = metadataBody.safeParse(req.body ?? {});
    if (!parsed.success) return void fail(res, 400, parsed.error.message);
    item.metadata = parsed.data;
    res.json(item);
  });
  api.delete('/cart/items/:itemId', (req, res) => {
    const before = cart.length;
    cart = cart.filter((i) => i.itemId !== req.params.itemId);
    if (cart.length === before) return void fail(res, 404, 'Articolul nu este în coș.');
    res.json({ items: cart });
  });
  api.delete('/cart', (_req, res) => {
    cart = [];
    res.json({ items: cart });
  });
  api.post('/cart/submit', (_req, res) => {
    control.hit('submit');
    if (cart.length === 0) return void fail(res, 400, 'Coșul este gol.');
    if (credits < cart.length) {
      return void res.status(402).json({ status: 402, error: 'Payment Required', message: `Credit insuficient: ${credits} disponibile, ${cart.length} necesare.` });
    }
    credits -= cart.length;
    const order: Order = {
      orderId: `C${String(nextId++).padStart(8, '0')}`,
      submittedAt: new Date().toISOString(),
      polls: 0,
      items: cart.map((i) => ({ ...i, cfNumber: cfNumberOf(i.uatId, i.cadastralNumber), documentId: `D${nextId++}` })),
    };
    orders.push(order);
    cart = [];
    res.status(201).json({ orderId: order.orderId, submittedAt: order.submittedAt, items: order.items.length, credits });
  });

  const view = (o: Order) => ({
    orderId: o.orderId,
    submittedAt: o.submittedAt,
    status: o.polls >= pollsUntilDone ? 'done' : 'processing',
    items: o.items.map(({ itemId, countyId, uatId, cadastralNumber, metadata }) => ({ itemId, countyId, uatId, cadastralNumber, metadata })),
  });
  api.get('/orders', (_req, res) => void res.json({ orders: orders.map(view) }));
  api.get('/orders/:orderId', (req, res) => {
    const o = orders.find((x) => x.orderId === req.params.orderId);
    if (!o) return void fail(res, 404, 'Comandă inexistentă.');
    // Each status poll brings the order closer to done (EXTERNAL-SERVICES.md: processing for a few polls).
    const v = view(o);
    o.polls++;
    res.json(v);
  });
  api.get('/orders/:orderId/documents', (req, res) => {
    const o = orders.find((x) => x.orderId === req.params.orderId);
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
    const o = orders.find((x) => x.items.some((i) => i.documentId === req.params.documentId));
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
  const listening = await listenSimulator(app, opts.port ?? config.cfportal.simPort, opts.host);
  return { ...listening };
}
