/**
 * The central GIS API simulator (EXTERNAL-SERVICES.md, "Central GIS API"): `/api/v1/...` over the
 * landreg simulator's parcels, every call checked against the identity provider's JWKS. Search
 * has no siruta filter and caps at 50 hits (spec 4.2 rule 2 depends on it);
 * `/api/v1/parcela/by-ref` does not exist. `/__sim/*` as every simulator, plus
 * `POST /__sim/reject-tokens {count, sub?}` (the next `count` calls, of the subject `sub` when
 * given, answer 401 `invalid_token`, as after an upstream revocation) and `GET /__sim/truth`.
 */
import { listenSimulator, simulatorApp } from '../shared/app';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { simSettings } from '../shared/settings';
import { fromStereo70 } from '../shared/stereo70';
import { SimControl } from '../shared/control';
import { Prng, hashSeed } from '../shared/prng';
import { MAX_SEARCH_HITS } from '../landreg/immovables';
import { centralEnrichment, publicFacts as publicFactsOf, withoutPersonalFields, type CentralEnrichment } from './enrichment';
import { LAYER_BUILDINGS, LAYER_PARCELS } from '../landreg/layers';
import { FIRST_NAMES_F, FIRST_NAMES_M, SURNAMES } from '../landreg/names';
import { Nomenclature } from '../landreg/nomenclature';
import { buildPdf } from '../shared/pdf';
import { storeMaker, type Scale } from '../landreg/store';
import { CENTRAL_API_RESOURCE } from '../oidc/provider';
import { bearerVerifier, callerOf, requireScope, type Caller } from './auth';
import { CentralCatalog, type CatalogEntry, type ResolvedFeature } from './catalog';

export const API_V1 = '/api/v1';
const DAY_MS = 86_400_000;
/** Spec 8: the central enrichment is cached 30 days. */
const ENRICH_CACHE_MS = 30 * DAY_MS;
/** CONTRACT.md section 3: a completed extract is valid 30 days from issue. */
const EXTRACT_VALID_MS = 30 * DAY_MS;
/** An order reads as `processing` this many times, then `completed` (as the cfportal simulator). */
const PROCESSING_READS = 2;

export interface CentralSimOptions {
  port?: number;
  host?: string;
  seed?: number | string;
  scale?: Scale | string;
  dataDir?: string;
  /** The identity provider whose JWKS signs the access tokens. */
  issuer?: string;
  jwksUrl?: string;
}

export interface CentralSimulator {
  url: string;
  control: SimControl;
  close(): Promise<void>;
}

type OrderStatus = 'processing' | 'completed' | 'cancelled';
interface CfOrder {
  id: string;
  userId: string;
  siruta: number;
  cadastralRef: string;
  uatName: string;
  status: OrderStatus;
  version: number;
  /** Set by the orderer (PATCH); the service falls back to cf-<id>.pdf. */
  documentName: string | null;
  createdAt: string;
  updatedAt: string;
  issuedAt: string | null;
  expiresAt: string | null;
  reads: number;
}

const orderBody = z.object({ siruta: z.coerce.number().int().positive(), cadastralRef: z.string().trim().min(1), force: z.boolean().optional() });
const parcelBody = z.object({ siruta: z.coerce.number().int().positive(), cadastralRef: z.string().trim().min(1), force: z.boolean().optional() });
const patchBody = z.object({ documentName: z.string().trim().min(1).max(200).optional(), status: z.literal('cancelled').optional() });

const notFound = (res: Response, message = 'Resursa nu există în depozitul central.') => res.status(404).json({ error: 'not_found', message });
const badRequest = (res: Response, message: string, details?: unknown) => res.status(400).json({ error: 'bad_request', message, ...(details ? { details } : {}) });

function geometryOf(f: ResolvedFeature['feature']) {
  if (!f.parts || f.parts.length === 0) return null;
  const rings = f.parts.map((flat) => {
    const ring: number[][] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const [lon, lat] = fromStereo70([flat[i], flat[i + 1]]);
      ring.push([Math.round(lon * 1e7) / 1e7, Math.round(lat * 1e7) / 1e7]);
    }
    return ring;
  });
  return { type: 'Polygon', coordinates: rings };
}

export function createCentralApp(opts: CentralSimOptions = {}) {
  const nom = new Nomenclature(opts.dataDir ?? simSettings.landreg.dataDir);
  const newStore = storeMaker(nom, opts);
  let catalog = new CentralCatalog(newStore());
  const enrichCache = new Map<string, { enrichment: CentralEnrichment; enrichedAt: number }>();
  const publicFacts = new Map<string, { enrichment: CentralEnrichment; enrichedAt: null }>();
  const orders = new Map<string, CfOrder>();
  let orderSeq = 0;
  let rejectTokens: { count: number; sub: string | null } = { count: 0, sub: null };

  const control = new SimControl('API-ul central');
  const app = simulatorApp(control);
  app.use(
    '/__sim',
    control.router({
      onReset: (body) => {
        catalog = new CentralCatalog(newStore(body));
        enrichCache.clear();
        publicFacts.clear();
        orders.clear();
        rejectTokens = { count: 0, sub: null };
      },
      extend: (r) => {
        r.post('/reject-tokens', (req, res) => {
          const body = (req.body ?? {}) as { count?: unknown; sub?: unknown };
          rejectTokens = { count: Math.max(0, Number(body.count ?? 1) | 0), sub: typeof body.sub === 'string' && body.sub ? body.sub : null };
          res.json({ rejectTokens: rejectTokens.count, sub: rejectTokens.sub });
        });
        r.get('/truth', (req, res) => {
          const ref = typeof req.query.cadastralRef === 'string' ? req.query.cadastralRef : undefined;
          const siruta = typeof req.query.siruta === 'string' ? Number(req.query.siruta) : undefined;
          if (ref !== undefined || siruta !== undefined) {
            let features: CatalogEntry[] = ref !== undefined ? catalog.byCadastralRef(ref) : [];
            if (siruta !== undefined) {
              if (ref === undefined) features = catalog.ofUat(siruta, 200);
              else features = features.filter((e) => e.siruta === siruta);
            }
            return void res.json({ features });
          }
          res.json({
            seed: catalog.store.seed,
            features: catalog.size,
            uats: catalog.store.dataUats().map((u) => ({ siruta: u.siruta, name: u.name, county: u.countyName })),
            enrichCache: enrichCache.size,
            orders: [...orders.values()].map(orderView),
          });
        });
      },
    }),
  );

  const api = express.Router();
  api.use(express.json({ limit: '1mb' }));
  api.use(
    bearerVerifier({
      issuer: (opts.issuer ?? simSettings.oidc.issuer).replace(/\/$/, ''),
      audience: CENTRAL_API_RESOURCE,
      jwksUrl: opts.jwksUrl,
      rejectNext: (sub) => {
        if (rejectTokens.count === 0 || (rejectTokens.sub !== null && rejectTokens.sub !== sub)) return false;
        rejectTokens.count--;
        return true;
      },
    }),
  );

  // Whose token each call carried: a test sees the caller's own identity upstream.
  api.use((_req, res, next) => {
    control.hit(`caller:${callerOf(res).sub}`);
    next();
  });

  // ---- parcels ---------------------------------------------------------------------------------
  const enrichmentOf = (r: ResolvedFeature): { enrichment: CentralEnrichment | null; enrichedAt: number | null } => {
    if (r.entry.layerId !== LAYER_PARCELS || !r.immovable) return { enrichment: null, enrichedAt: null };
    const hit = enrichCache.get(r.entry.id) ?? publicFacts.get(r.entry.id);
    if (hit) return hit;
    // Before an enrichment round trip the central store knows the public facts only: stored data,
    // the same on every read (only ENRICHED_AT depends on the clock, and it is null here), so it
    // is computed once per parcel, as a store would read it, not rebuilt from the generator.
    const facts = { enrichment: publicFactsOf(computeEnrichment(r, Date.now())), enrichedAt: null };
    if (publicFacts.size >= 50_000) publicFacts.clear();
    publicFacts.set(r.entry.id, facts);
    return facts;
  };
  const computeEnrichment = (r: ResolvedFeature, now: number): CentralEnrichment =>
    centralEnrichment(
      {
        seed: catalog.store.seed,
        nom,
        uat: r.uat,
        immovable: r.immovable!,
        buildingsLegal: catalog.buildingsOf(r.data, r.immovable!.immovablePk).map((b) => b.attributes.IS_LEGAL === 1),
      },
      new Date(now),
    );
  const featureView = (r: ResolvedFeature, caller: Caller) => {
    const { enrichment, enrichedAt } = enrichmentOf(r);
    return {
      id: r.entry.id,
      layerId: r.entry.layerId,
      siruta: r.entry.siruta,
      uatName: r.uat.name,
      county: r.uat.countyName,
      objectId: r.entry.objectId,
      cadastralRef: r.entry.cadastralRef,
      areaValue: typeof r.feature.attributes.AREA_VALUE === 'number' ? r.feature.attributes.AREA_VALUE : null,
      isActive: true,
      geometry: geometryOf(r.feature),
      enrichment: enrichment && caller.scope !== 'full' ? withoutPersonalFields(enrichment) : enrichment,
      enrichedAt: enrichedAt === null ? null : new Date(enrichedAt).toISOString(),
      scope: caller.scope,
    };
  };
  /** The parcel of a (siruta, cadastralRef) body, or an answer already sent. */
  const parcelFor = (req: Request, res: Response, layerId = LAYER_PARCELS): ResolvedFeature | null => {
    const parsed = parcelBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      badRequest(res, 'Corpul cererii nu este valid.', parsed.error.issues);
      return null;
    }
    const entry = catalog.find(parsed.data.siruta, parsed.data.cadastralRef, layerId)[0];
    const r = entry ? catalog.resolve(entry.id) : null;
    if (!r) notFound(res, 'Imobilul nu există în depozitul central.');
    return r;
  };

  // Spec 5.5: a token without the claim gets 403 from every route, the search included.
  api.get('/search', requireScope, (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
    if (!q) return void badRequest(res, 'Parametrul q este obligatoriu.');
    const limit = Math.min(MAX_SEARCH_HITS, Math.max(1, Number(req.query.limit) || MAX_SEARCH_HITS));
    // No siruta filter upstream: a repeated reference fills the page with other UATs' parcels.
    const all = catalog.byCadastralRef(q);
    const features = all.slice(0, limit).map((e) => ({ id: e.id, layerId: e.layerId, siruta: e.siruta, cadastral_ref: e.cadastralRef }));
    res.json({ features, total: all.length, limit });
  });

  api.get('/parcela/:id', requireScope, (req, res) => {
    const r = catalog.resolve(req.params.id);
    if (!r) return void notFound(res, 'Parcela nu există în depozitul central.');
    res.json(featureView(r, callerOf(res)));
  });

  api.post('/parcel/tech', requireScope, (req, res) => {
    const r = parcelFor(req, res);
    if (!r) return;
    control.hit('tech:landreg');
    const imm = r.immovable;
    res.json({
      id: r.entry.id,
      siruta: r.entry.siruta,
      cadastralRef: r.entry.cadastralRef,
      measuredArea: imm?.measuredArea ?? null,
      legalArea: imm?.legalArea ?? null,
      intravilan: imm?.intravilan ?? null,
      useCategories: imm?.useCategories.map((u) => ({ categorie: u.code, suprafata: u.area, intravilan: u.intravilan })) ?? [],
      buildings: imm?.buildingRefs ?? [],
      refreshedAt: new Date().toISOString(),
    });
  });

  api.post('/parcel/enrich', requireScope, (req, res) => {
    const r = parcelFor(req, res);
    if (!r) return;
    const force = (req.body as { force?: boolean }).force === true;
    const now = Date.now();
    const hit = enrichCache.get(r.entry.id);
    const cached = !!hit && !force && now - hit.enrichedAt < ENRICH_CACHE_MS;
    if (!cached) enrichCache.set(r.entry.id, { enrichment: computeEnrichment(r, now), enrichedAt: now });
    control.hit(cached ? 'enrich:cache' : 'enrich:landreg');
    res.json({ feature: featureView(r, callerOf(res)), cached });
  });

  const units = (r: ResolvedFeature, caller: Caller, withOwners: boolean) => {
    const rng = new Prng(hashSeed(catalog.store.seed, 'units', r.entry.id));
    const count = rng.int(2, 12);
    return Array.from({ length: count }, (_, i) => {
      const unit = {
        unitNo: i + 1,
        cadastralRef: `${r.entry.cadastralRef}-U${i + 1}`,
        floor: Math.floor(i / 4),
        area: Math.round(rng.range(28, 110) * 100) / 100,
      };
      if (!withOwners) return unit;
      const first = rng.pick(rng.chance(0.5) ? FIRST_NAMES_F : FIRST_NAMES_M);
      const owners = `${rng.pick(SURNAMES)} ${first} (1/1)`;
      const nrCF = `${r.entry.cadastralRef}-C1-U${i + 1}`;
      const hidden = caller.scope !== 'full';
      return { ...unit, owners: hidden ? null : owners, nrCF: hidden ? null : nrCF };
    });
  };
  api.post('/parcel/units-fetch', requireScope, (req, res) => {
    const r = parcelFor(req, res, LAYER_BUILDINGS);
    if (!r) return;
    res.json({ id: r.entry.id, siruta: r.entry.siruta, cadastralRef: r.entry.cadastralRef, units: units(r, callerOf(res), false) });
  });
  api.post('/building/condo-owners', requireScope, (req, res) => {
    const r = parcelFor(req, res, LAYER_BUILDINGS);
    if (!r) return;
    res.json({ id: r.entry.id, siruta: r.entry.siruta, cadastralRef: r.entry.cadastralRef, units: units(r, callerOf(res), true) });
  });

  // ---- CF extracts -----------------------------------------------------------------------------
  function orderView(o: CfOrder) {
    const { reads: _reads, ...rest } = o;
    return rest;
  }
  /** A read moves a processing order along, as polling a real order does. */
  const advance = (o: CfOrder) => {
    if (o.status !== 'processing') return;
    o.reads++;
    if (o.reads > PROCESSING_READS) {
      const now = new Date();
      o.status = 'completed';
      o.issuedAt = now.toISOString();
      o.expiresAt = new Date(now.getTime() + EXTRACT_VALID_MS).toISOString();
      o.updatedAt = o.issuedAt;
    }
  };
  const validExtract = (siruta: number, cadastralRef: string) =>
    [...orders.values()].find((o) => o.siruta === siruta && o.cadastralRef === cadastralRef && o.status === 'completed' && Date.parse(o.expiresAt!) > Date.now());
  /** An order of the caller; `catalog`: also a completed extract of anyone (the shared catalog). */
  const ownOrder = (req: Request, res: Response, catalogToo = false): CfOrder | null => {
    const o = orders.get(req.params.id);
    const mine = o && o.userId === callerOf(res).sub;
    if (!o || !(mine || (catalogToo && o.status === 'completed'))) {
      notFound(res, 'Comanda nu există.');
      return null;
    }
    return o;
  };

  api.post('/cf/order', requireScope, (req, res) => {
    const parsed = orderBody.safeParse(req.body ?? {});
    if (!parsed.success) return void badRequest(res, 'Corpul cererii nu este valid.', parsed.error.issues);
    const { siruta, cadastralRef, force } = parsed.data;
    const entry = catalog.find(siruta, cadastralRef)[0];
    if (!entry) return void notFound(res, 'Imobilul nu există în depozitul central.');
    // An order of this parcel still processing (anyone's): a second one would be paid twice, force or not.
    const running = [...orders.values()].find((o) => o.siruta === siruta && o.cadastralRef === cadastralRef && o.status === 'processing');
    if (running) {
      control.hit('cf:order_in_progress');
      return void res.status(409).json({
        error: 'order_in_progress',
        message: `Extrasul CF pentru imobilul ${cadastralRef} este deja comandat și în lucru.`,
        orderId: running.id,
      });
    }
    const valid = validExtract(siruta, cadastralRef);
    if (valid && !force) {
      control.hit('cf:catalog_hit');
      return void res.status(409).json({
        error: 'catalog_hit',
        message: `Există deja un extras CF valabil pentru imobilul ${cadastralRef}, până la ${valid.expiresAt!.slice(0, 10)}.`,
        extract: orderView(valid),
      });
    }
    const previous = [...orders.values()].filter((o) => o.siruta === siruta && o.cadastralRef === cadastralRef);
    const now = new Date().toISOString();
    const o: CfOrder = {
      id: `cf-${String(++orderSeq).padStart(6, '0')}`,
      userId: callerOf(res).sub,
      siruta,
      cadastralRef,
      uatName: nom.uat(siruta)?.name ?? String(siruta),
      status: 'processing',
      version: previous.reduce((m, p) => Math.max(m, p.version), 0) + 1,
      documentName: null,
      createdAt: now,
      updatedAt: now,
      issuedAt: null,
      expiresAt: null,
      reads: 0,
    };
    orders.set(o.id, o);
    control.hit('cf:order');
    res.status(201).json(orderView(o));
  });

  api.get('/cf/orders', requireScope, (req, res) => {
    const limit = Math.min(100, Math.max(1, Number(req.query.limit) || 20));
    const offset = Math.max(0, Number(req.query.offset) || 0);
    const status = typeof req.query.status === 'string' ? req.query.status : undefined;
    const mine = [...orders.values()].filter((o) => o.userId === callerOf(res).sub);
    mine.forEach(advance);
    const filtered = mine.filter((o) => !status || o.status === status).reverse();
    res.json({ items: filtered.slice(offset, offset + limit).map(orderView), total: filtered.length, limit, offset });
  });

  api.get('/cf/catalog', requireScope, (_req, res) => {
    const items = [...orders.values()]
      .filter((o) => o.status === 'completed' && Date.parse(o.expiresAt!) > Date.now())
      .map((o) => ({ orderId: o.id, siruta: o.siruta, cadastralRef: o.cadastralRef, version: o.version, issuedAt: o.issuedAt, expiresAt: o.expiresAt }));
    res.json({ items });
  });

  api.get('/cf/:id', requireScope, (req, res) => {
    const o = ownOrder(req, res, true);
    if (!o) return;
    advance(o);
    res.json(orderView(o));
  });

  api.patch('/cf/:id', requireScope, (req, res) => {
    const o = ownOrder(req, res);
    if (!o) return;
    const parsed = patchBody.safeParse(req.body ?? {});
    if (!parsed.success) return void badRequest(res, 'Corpul cererii nu este valid.', parsed.error.issues);
    if (parsed.data.status === 'cancelled') {
      if (o.status !== 'processing') {
        return void res.status(409).json({ error: 'invalid_state', message: `Comanda în starea ${o.status} nu mai poate fi anulată.` });
      }
      o.status = 'cancelled';
    }
    if (parsed.data.documentName) o.documentName = parsed.data.documentName;
    o.updatedAt = new Date().toISOString();
    res.json(orderView(o));
  });

  api.get('/cf/:id/pdf', requireScope, (req, res) => {
    const o = ownOrder(req, res, true);
    if (!o) return;
    if (o.status !== 'completed') return void res.status(409).json({ error: 'not_ready', message: 'Extrasul CF nu este încă emis.' });
    const pdf = buildPdf(`Extras de carte funciara ${o.cadastralRef}`, [
      `UAT: ${o.uatName} (SIRUTA ${o.siruta})`,
      `Numar cadastral: ${o.cadastralRef}`,
      `Versiune: ${o.version}`,
      `Emis: ${o.issuedAt}`,
      `Valabil pana la: ${o.expiresAt}`,
    ]);
    res.type('application/pdf').set('Content-Length', String(pdf.length)).send(pdf);
  });

  app.use(API_V1, api);
  app.use((_req, res) => {
    notFound(res, 'Ruta nu există în API-ul central.');
  });
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: 'internal_error', message: 'Eroare internă a API-ului central.', hint: err.message.slice(0, 200) });
  });
  return { app, control };
}

export async function startCentralSimulator(opts: CentralSimOptions = {}): Promise<CentralSimulator> {
  const { app, control } = createCentralApp(opts);
  const listening = await listenSimulator(app, opts.port ?? simSettings.central.port, opts.host);
  return { ...listening, control };
}
