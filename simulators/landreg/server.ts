/**
 * The land-registry portal simulator: one Express app on its own port speaking the portal's
 * session-cookie JSON services and ArcGIS-style layer queries, plus the /__sim control and truth
 * endpoints. Paths are documented in simulators/landreg/README.md.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { simSettings } from '../shared/settings';
import { listenSimulator, simulatorApp } from '../shared/app';
import { SimControl } from '../shared/control';
import { Prng, hashSeed } from '../shared/prng';
import { ID_BLOCK } from './generator';
import { immovableDetails, listEntry, ownershipTree, searchByCadastral, searchByOwner } from './immovables';
import { LAYERS, layerDef } from './layers';
import type { UatData } from './model';
import { mutateLayer } from './mutate';
import { Nomenclature, type Uat } from './nomenclature';
import { QueryEngine, esriError } from './query';
import { SESSION_COOKIE, rgiRouter } from './rgi';
import { Sessions } from '../shared/sessions';
import { storeMaker, type Scale, type SimStore } from './store';

export const API = '/eterra/api';

export interface LandregSimOptions {
  port?: number;
  host?: string;
  seed?: number | string;
  scale?: Scale | string;
  username?: string;
  password?: string;
  dataDir?: string;
  sessionTtlSeconds?: number;
}

export interface LandregSimulator {
  url: string;
  close(): Promise<void>;
  /** For in-process tests and the bench: the live data store. */
  state(): { seed: number; scale: Scale; store: SimStore };
}

const nomenclatures = new Map<string, Nomenclature>();
function nomenclatureFor(dataDir: string): Nomenclature {
  let n = nomenclatures.get(dataDir);
  if (!n) {
    n = new Nomenclature(dataDir);
    nomenclatures.set(dataDir, n);
  }
  return n;
}

const mutateBody = z.object({
  siruta: z.coerce.number().int(),
  layerId: z.string(),
  add: z.number().int().min(0).optional(),
  remove: z.number().int().min(0).optional(),
  change: z.number().int().min(0).optional(),
  reshape: z.number().int().min(0).optional(),
});

function badRequest(res: Response, message: string) {
  res.status(400).json({ status: 400, error: 'Bad Request', message });
}

function intParam(v: unknown): number | null {
  if (typeof v !== 'string' || v.trim() === '') return null;
  const n = Number(v);
  return Number.isInteger(n) ? n : null;
}

export function createLandregApp(opts: LandregSimOptions = {}) {
  const dataDir = opts.dataDir ?? simSettings.landreg.dataDir;
  const nom = nomenclatureFor(dataDir);
  const newStore = storeMaker(nom, opts);
  const username = opts.username ?? simSettings.landreg.username;
  const password = opts.password ?? simSettings.landreg.password;
  const defaultTtl = opts.sessionTtlSeconds ?? simSettings.landreg.sessionTtlSeconds;

  let store = newStore();
  let engine = new QueryEngine(store);
  let mutateRng = new Prng(hashSeed(store.seed, 'mutate'));
  const sessions = new Sessions();
  const control = new SimControl('Portalul de cadastru');

  const app = simulatorApp(control);

  // ---- /__sim control and truth ------------------------------------------------------------
  app.use(
    '/__sim',
    control.router({
      onReset: (body) => {
        store = newStore(body);
        engine = new QueryEngine(store);
        mutateRng = new Prng(hashSeed(store.seed, 'mutate'));
        sessions.clear();
      },
      extend: (r) => {
        r.get('/info', (_req, res) => {
          res.json({ seed: store.seed, scale: store.scale, dataUats: store.dataUats().length, cachedUats: store.cachedCount() });
        });
        // The data UATs and the parcels each is generated with, without generating any (the
        // scale bench plans its load from it; /__sim/truth would build every UAT).
        r.get('/uats', (_req, res) => {
          const uats = store.dataUats().map((u) => ({
            siruta: u.siruta,
            name: u.name,
            county: u.countyName,
            workspaceId: u.workspaceId,
            type: u.type,
            villages: u.localities.length,
            areaKm2: Math.round(nom.projected(u).area / 1e4) / 100,
            targetParcels: store.target(u),
          }));
          res.json({ scale: store.scale, uats });
        });
        r.post('/mutate', (req, res) => {
          const parsed = mutateBody.safeParse(req.body ?? {});
          if (!parsed.success) return badRequest(res, parsed.error.message);
          const { siruta, layerId, ...change } = parsed.data;
          const uat = nom.uat(siruta);
          const data = store.get(siruta);
          const layer = data?.layers.get(layerId);
          if (!uat || !data || !layer) return badRequest(res, `Nu există date pentru UAT ${siruta}, strat ${layerId}`);
          store.pin(siruta);
          const result = mutateLayer(uat, data, layerId, layer, change, mutateRng);
          store.version++;
          res.json(result);
        });
        r.get('/truth', (req, res) => {
          const siruta = intParam(req.query.siruta);
          const layerId = typeof req.query.layerId === 'string' ? req.query.layerId : undefined;
          if (siruta === null && !layerId) {
            const uats = store.dataUats().map((u) => {
              const data = store.get(u.siruta)!;
              const counts: Record<string, number> = {};
              for (const [id, l] of data.layers) counts[id] = l.features.length;
              return { siruta: u.siruta, name: u.name, county: u.countyName, workspaceId: u.workspaceId, counts };
            });
            return res.json({ uats });
          }
          if (siruta === null || !layerId) return badRequest(res, 'siruta și layerId sunt necesare împreună');
          const features = (store.get(siruta)?.layers.get(layerId)?.features ?? []).map((f) => ({
            objectId: f.objectId,
            validFrom: f.attributes.VALID_FROM,
          }));
          res.json({ siruta, layerId, features });
        });
      },
    }),
  );

  // ---- session -----------------------------------------------------------------------------
  const ttl = () => control.faults.sessionTtlSeconds ?? defaultTtl;
  const form = express.urlencoded({ extended: false, limit: '1mb' });

  app.post(`${API}/authentication`, form, express.json(), (req, res) => {
    const body = (req.body ?? {}) as Record<string, string>;
    const user = body.j_username ?? body.username;
    const pass = body.j_password ?? body.password;
    if (user !== username || pass !== password) {
      res.status(401).json({ status: 401, error: 'Unauthorized', message: 'Nume de utilizator sau parolă incorecte' });
      return;
    }
    const id = sessions.create(user);
    res.cookie(SESSION_COOKIE, id, { httpOnly: true, path: '/', sameSite: 'lax' });
    res.json({ authenticated: true, username: user, sessionTimeoutSeconds: ttl() });
  });

  const requireSession = (req: Request, res: Response, next: NextFunction) => {
    const user = sessions.touch(req.cookies?.[SESSION_COOKIE], ttl());
    if (!user) {
      res.status(401).json({ status: 401, error: 'Unauthorized', message: 'Sesiune inexistentă sau expirată. Autentificați-vă din nou.' });
      return;
    }
    res.locals.user = user;
    next();
  };

  app.post(`${API}/logout`, (req, res) => {
    sessions.destroy(req.cookies?.[SESSION_COOKIE]);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.json({ loggedOut: true });
  });

  const api = express.Router();
  api.use(requireSession);

  api.get('/account', (_req, res) => {
    res.json({ username: res.locals.user, fullName: 'Utilizator Geoportal', organisation: 'Birou de cadastru', roles: ['ROLE_PFA_CADASTRU'] });
  });

  // ---- nomenclature ------------------------------------------------------------------------
  api.get('/adm/nomen/workspaces', (_req, res) => {
    res.json(nom.counties.map((c) => ({ workspaceId: c.workspaceId, code: c.code, name: c.name, countyNo: c.countyNo, uatCount: c.uats.length })));
  });
  const uatView = (u: Uat) => ({ siruta: u.siruta, name: u.name, officialName: u.officialName, type: u.type, workspaceId: u.workspaceId, countyName: u.countyName });
  api.get('/adm/nomen/workspaces/:workspaceId/uats', (req, res) => {
    const c = nom.county(Number(req.params.workspaceId));
    if (!c) return void res.status(404).json({ status: 404, error: 'Not Found', message: 'Județ inexistent' });
    res.json(c.uats.map(uatView));
  });
  api.get('/adm/nomen/uats/:siruta', (req, res) => {
    const u = nom.uat(Number(req.params.siruta));
    if (!u) return void res.status(404).json({ status: 404, error: 'Not Found', message: 'UAT inexistent' });
    const withGeometry = req.query.geometry === 'true';
    res.json({
      ...uatView(u),
      localities: u.localities,
      areaValue: Math.round(nom.projected(u).area),
      ...(withGeometry ? { geometry: { rings: nom.projected(u).rings, spatialReference: { wkid: 3844 } } } : {}),
    });
  });

  // ---- layers ------------------------------------------------------------------------------
  api.get('/map/layers', (_req, res) => {
    res.json(LAYERS.map((l) => ({ id: l.id, name: l.name, category: l.category, geometryType: l.geometryType })));
  });
  api.get('/map/rest/:layerId', (req, res) => {
    const l = layerDef(req.params.layerId);
    if (!l) return void res.status(404).json({ error: { code: 404, message: 'Layer not found', details: [] } });
    res.json({
      id: 0,
      name: l.id,
      type: 'Feature Layer',
      description: l.name,
      geometryType: l.geometryType,
      objectIdField: 'OBJECTID',
      maxRecordCount: 1000,
      supportsPagination: true,
      advancedQueryCapabilities: { supportsPagination: true, supportsReturningQueryExtent: false },
      extent: { xmin: 116000, ymin: 215000, xmax: 1000000, ymax: 775000, spatialReference: { wkid: 3844 } },
      fields: l.fields,
    });
  });
  const query = (req: Request, res: Response, next: NextFunction) => {
    const params: Record<string, string | undefined> = {};
    const src = { ...(req.query as Record<string, unknown>), ...((req.body as Record<string, unknown>) ?? {}) };
    for (const [k, v] of Object.entries(src)) if (typeof v === 'string') params[k] = v;
    const layerId = req.params.layerId;
    const run = () => engine.run(layerId, params, { duplicatePages: control.faults.duplicatePages === true });
    const isIn = (out: ReturnType<typeof run>, list: number[] | undefined) => (out.sirutas ?? []).some((s) => (list ?? []).includes(s));
    const answer = (out: ReturnType<typeof run>) => {
      control.hit(`query:${out.kind}:${layerId}`);
      if (out.siruta !== null) control.hit(`query:${out.kind}:${layerId}:${out.siruta}`);
      // A query over several UATs fails too when one of them is failing (a county's statistics).
      const body = isIn(out, control.faults.failSirutas) ? esriError('Unable to complete operation.', [`Simulated failure for ADMIN_UNIT_ID ${out.siruta}`]) : out.body;
      res.type(params.f === 'pjson' ? 'text/plain' : 'application/json').send(JSON.stringify(body));
    };
    const out = run();
    if (!isIn(out, control.faults.holdSirutas)) return answer(out);
    // Answered, once released, from the truth as it stands then.
    control
      .whileHeld(() => isIn(out, control.faults.holdSirutas))
      .then(() => answer(run()))
      .catch(next);
  };
  api.get('/map/rest/:layerId/query', query);
  api.post('/map/rest/:layerId/query', form, query);

  // ---- immovables --------------------------------------------------------------------------
  const uatOfPk = (pk: number): { uat: Uat; data: UatData } | null => {
    const uat = nom.uats[Math.floor(pk / ID_BLOCK) - 1];
    const data = uat ? store.get(uat.siruta) : null;
    return uat && data ? { uat, data } : null;
  };
  const scopeUats = (req: Request): Array<{ uat: Uat; data: UatData }> | string => {
    const siruta = intParam(req.query.adminUnitId);
    const ws = intParam(req.query.workspaceId);
    let uats: Uat[];
    if (siruta !== null) {
      const u = nom.uat(siruta);
      if (!u || (ws !== null && u.workspaceId !== ws)) return 'UAT inexistent în județul indicat';
      uats = [u];
    } else if (ws !== null) {
      const c = nom.county(ws);
      if (!c) return 'Județ inexistent';
      uats = c.uats;
    } else return 'workspaceId sau adminUnitId este obligatoriu';
    return uats.flatMap((u) => {
      const data = store.get(u.siruta);
      return data ? [{ uat: u, data }] : [];
    });
  };

  api.get('/immovable/list', (req, res) => {
    const siruta = intParam(req.query.adminUnitId);
    const ws = intParam(req.query.workspaceId);
    if (siruta === null || ws === null) return badRequest(res, 'workspaceId și adminUnitId sunt obligatorii');
    const uat = nom.uat(siruta);
    if (!uat || uat.workspaceId !== ws) return badRequest(res, 'UAT inexistent în județul indicat');
    const page = Math.max(0, intParam(req.query.page) ?? 0);
    const size = Math.min(1000, Math.max(1, intParam(req.query.size) ?? 100));
    const all = store.get(siruta)?.immovables ?? [];
    const content = all.slice(page * size, (page + 1) * size).map(listEntry);
    const totalPages = Math.ceil(all.length / size);
    res.json({ content, totalElements: all.length, totalPages, number: page, size, first: page === 0, last: page >= totalPages - 1 });
  });

  const withImmovable = (req: Request, res: Response) => {
    const pk = intParam(req.query.immovablePk);
    if (pk === null) return void badRequest(res, 'immovablePk este obligatoriu');
    const found = uatOfPk(pk);
    const imm = found?.data.immovableByPk.get(pk);
    if (!found || !imm) return void res.status(404).json({ status: 404, error: 'Not Found', message: 'Imobil inexistent' });
    return { ...found, imm };
  };
  api.get('/immovable/details', (req, res) => {
    const f = withImmovable(req, res);
    if (f) res.json(immovableDetails(store.seed, nom, f.uat, f.imm));
  });
  api.get('/immovable/ownership', (req, res) => {
    const f = withImmovable(req, res);
    if (!f) return;
    control.hit(`immovable:ownership:${f.uat.siruta}`);
    res.json({ immovablePk: f.imm.immovablePk, nodes: ownershipTree(store.seed, f.uat, f.imm) });
  });
  /**
   * Extension: the searches of one UAT are counted per UAT on arrival (`immovable:<kind>:<siruta>`)
   * and, like its layer queries, wait unanswered while the UAT is in `holdSirutas`.
   */
  const uatSearch = (kind: string, handle: (req: Request, res: Response) => void) => (req: Request, res: Response, next: NextFunction) => {
    const siruta = intParam(req.query.adminUnitId);
    if (siruta !== null) control.hit(`immovable:${kind}:${siruta}`);
    const held = () => siruta !== null && (control.faults.holdSirutas ?? []).includes(siruta);
    if (!held()) return handle(req, res);
    control
      .whileHeld(held)
      .then(() => handle(req, res))
      .catch(next);
  };
  api.get(
    '/immovable/search',
    uatSearch('search', (req, res) => {
      const numbers = typeof req.query.cadastralNumbers === 'string' ? req.query.cadastralNumbers.split(',') : [];
      if (numbers.length === 0) return badRequest(res, 'cadastralNumbers este obligatoriu');
      const scope = scopeUats(req);
      if (typeof scope === 'string') return badRequest(res, scope);
      res.json(searchByCadastral(store.seed, nom, scope, numbers));
    }),
  );
  api.get(
    '/immovable/search-owner',
    uatSearch('search-owner', (req, res) => {
      const name = typeof req.query.name === 'string' ? req.query.name : '';
      if (name.trim().length < 3) return badRequest(res, 'Numele căutat trebuie să aibă cel puțin 3 caractere');
      const scope = scopeUats(req);
      if (typeof scope === 'string') return badRequest(res, scope);
      res.json(searchByOwner(store.seed, scope, name));
    }),
  );

  api.use('/rgi', rgiRouter(() => ({ seed: store.seed, nom, store })));

  app.use(API, api);
  app.use((_req, res) => {
    res.status(404).json({ status: 404, error: 'Not Found', message: 'Resursă inexistentă' });
  });
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ status: 500, error: 'Internal Server Error', message: err.message });
  });

  return { app, state: () => ({ seed: store.seed, scale: store.scale, store }) };
}

export async function startLandregSimulator(opts: LandregSimOptions = {}): Promise<LandregSimulator> {
  const { app, state } = createLandregApp(opts);
  const listening = await listenSimulator(app, opts.port ?? simSettings.landreg.port, opts.host);
  return { ...listening, state };
}
