/**
 * RGI (the registry of applications): applications per organisation unit and year, details,
 * issued documents, and a download that needs the actor context and a confirm-view first.
 * Applications are derived from (seed, workspace, year, index), so nothing is stored except
 * the per-session actor context and confirmations.
 */
import express, { type Request, type Response } from 'express';
import { Prng, hashSeed } from '../shared/prng';
import { FIRST_NAMES_F, FIRST_NAMES_M, SURNAMES } from './names';
import type { Nomenclature } from './nomenclature';
import { buildPdf } from '../shared/pdf';
import type { SimStore } from './store';

/** The portal's session cookie (a Java servlet container's); the RGI state is kept per session. */
export const SESSION_COOKIE = 'JSESSIONID';

/** Spec 4.4: the RGI organisation unit id is countyId * 1000 + 2. */
export const orgUnitOf = (workspaceId: number) => workspaceId * 1000 + 2;

const APP_TYPES = ['Recepție și înscriere', 'Informare', 'Dezmembrare', 'Alipire', 'Intabulare', 'Rectificare'];
const DOC_TYPES = [
  { documentTypeId: 1, name: 'Încheiere' },
  { documentTypeId: 2, name: 'Extras de carte funciară pentru informare' },
  { documentTypeId: 3, name: 'Referat' },
  { documentTypeId: 4, name: 'Plan de amplasament și delimitare' },
];

interface Ctx {
  seed: number;
  nom: Nomenclature;
  store: SimStore;
}

/** applicationId = workspaceId * 1e7 + (year - 2000) * 1e5 + index: decodable without storage. */
function decodeAppId(id: number) {
  return { workspaceId: Math.floor(id / 1e7), year: 2000 + Math.floor((id % 1e7) / 1e5), index: id % 1e5 };
}

function applicationsCount(seed: number, workspaceId: number, year: number): number {
  return new Prng(hashSeed(seed, 'rgi-count', workspaceId, year)).int(25, 60);
}

function application(ctx: Ctx, applicationId: number) {
  const { workspaceId, year, index } = decodeAppId(applicationId);
  const county = ctx.nom.county(workspaceId);
  if (!county || index < 1 || index > applicationsCount(ctx.seed, workspaceId, year)) return null;
  const rng = new Prng(hashSeed(ctx.seed, 'rgi', applicationId));
  const uat = rng.pick(county.uats);
  const month = rng.int(1, 12);
  const done = rng.chance(0.7);
  return {
    applicationId,
    applicationNo: `${rng.int(1, 99999)}/${year}`,
    registrationDate: `${year}-${String(month).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`,
    applicationType: rng.pick(APP_TYPES),
    status: done ? 'SOLUȚIONATĂ' : rng.pick(['ÎN LUCRU', 'SUSPENDATĂ', 'ÎN CURS DE SOLUȚIONARE']),
    workspaceId,
    orgUnitId: orgUnitOf(workspaceId),
    adminUnitId: uat.siruta,
    uatName: uat.name,
    cadastralNumber: String(rng.int(1, 120000)),
    applicant: `${rng.pick(SURNAMES)} ${rng.pick(rng.chance(0.5) ? FIRST_NAMES_F : FIRST_NAMES_M)}`,
    done,
  };
}

function issuedDocs(ctx: Ctx, applicationId: number) {
  const app = application(ctx, applicationId);
  if (!app) return null;
  const rng = new Prng(hashSeed(ctx.seed, 'rgi-docs', applicationId));
  const n = app.done ? rng.int(1, 3) : rng.int(0, 1);
  return Array.from({ length: n }, (_, k) => {
    const t = DOC_TYPES[k % DOC_TYPES.length];
    return {
      documentPk: applicationId * 10 + k + 1,
      documentTypeId: t.documentTypeId,
      documentType: t.name,
      applicationNo: app.applicationNo,
      // A document of an unsolved application, and the odd one of a solved one, is not ready yet.
      available: app.done && !rng.chance(0.1),
    };
  });
}

interface SessionState {
  workspaceId: number | null;
  confirmed: Set<number>;
}

export function rgiRouter(ctx: () => Ctx) {
  const r = express.Router();
  const perSession = new Map<string, SessionState>();
  const state = (req: Request): SessionState => {
    const id = String(req.cookies?.[SESSION_COOKIE] ?? '');
    let s = perSession.get(id);
    if (!s) {
      s = { workspaceId: null, confirmed: new Set() };
      perSession.set(id, s);
    }
    return s;
  };
  const bad = (res: Response, status: number, message: string) => res.status(status).json({ status, error: status === 404 ? 'Not Found' : 'Bad Request', message });

  r.get('/applications', (req, res) => {
    const ws = Number(req.query.workspaceId);
    const org = Number(req.query.orgUnitId);
    const year = Number(req.query.year);
    if (!ctx().nom.county(ws)) return void bad(res, 400, 'workspaceId invalid');
    if (org !== orgUnitOf(ws)) return void bad(res, 400, `orgUnitId trebuie să fie ${orgUnitOf(ws)} pentru acest județ`);
    if (!Number.isInteger(year) || year < 2000 || year > 2099) return void bad(res, 400, 'year invalid');
    const total = applicationsCount(ctx().seed, ws, year);
    const page = Math.max(0, Number(req.query.page ?? 0) || 0);
    const size = Math.min(100, Math.max(1, Number(req.query.size ?? 50) || 50));
    const content = [];
    for (let i = page * size + 1; i <= Math.min(total, (page + 1) * size); i++) {
      const { done: _done, ...a } = application(ctx(), ws * 1e7 + (year - 2000) * 1e5 + i)!;
      content.push(a);
    }
    res.json({ content, totalElements: total, number: page, size, last: (page + 1) * size >= total });
  });
  r.get('/applications/:applicationId', (req, res) => {
    const a = application(ctx(), Number(req.params.applicationId));
    if (!a) return void bad(res, 404, 'Cerere inexistentă');
    const { done: _done, ...rest } = a;
    res.json({ ...rest, history: [{ date: rest.registrationDate, status: 'ÎNREGISTRATĂ' }, { date: rest.registrationDate, status: rest.status }] });
  });
  r.get('/applications/:applicationId/issued-docs', (req, res) => {
    const id = Number(req.params.applicationId);
    const docs = issuedDocs(ctx(), id);
    if (!docs) return void bad(res, 404, 'Cerere inexistentă');
    if (req.query.workspaceId !== undefined && Number(req.query.workspaceId) !== decodeAppId(id).workspaceId) {
      return void bad(res, 400, 'workspaceId nu corespunde cererii');
    }
    res.json(docs);
  });
  r.post('/actor-context', express.json(), express.urlencoded({ extended: false }), (req, res) => {
    const ws = Number(req.body?.workspaceId);
    const org = Number(req.body?.orgUnitId);
    if (!ctx().nom.county(ws) || org !== orgUnitOf(ws)) return void bad(res, 400, 'Context de actor invalid');
    const s = state(req);
    s.workspaceId = ws;
    s.confirmed.clear();
    res.json({ workspaceId: ws, orgUnitId: org });
  });
  const findDoc = (req: Request) => {
    const pk = Number(req.params.documentPk);
    const appId = Math.floor(pk / 10);
    return { pk, appId, doc: issuedDocs(ctx(), appId)?.find((d) => d.documentPk === pk) };
  };
  r.post('/documents/:documentPk/confirm-view', (req, res) => {
    const { pk, appId, doc } = findDoc(req);
    if (!doc) return void bad(res, 404, 'Document inexistent');
    const s = state(req);
    if (s.workspaceId !== decodeAppId(appId).workspaceId) return void bad(res, 403, 'Setați contextul de actor pentru județul documentului');
    s.confirmed.add(pk);
    res.json({ documentPk: pk, confirmed: true });
  });
  r.get('/documents/:documentPk/download', (req, res) => {
    const { pk, appId, doc } = findDoc(req);
    if (!doc) return void bad(res, 404, 'Document inexistent');
    const s = state(req);
    if (s.workspaceId !== decodeAppId(appId).workspaceId || !s.confirmed.has(pk)) {
      return void res.status(403).json({ status: 403, error: 'Forbidden', message: 'Documentul trebuie confirmat (confirm-view) în contextul de actor corect' });
    }
    if (!doc.available) {
      return void res.status(409).json({ status: 409, error: 'Conflict', message: 'Documentul nu este încă disponibil' });
    }
    const app = application(ctx(), appId)!;
    const pdf = buildPdf(doc.documentType, [
      `Cerere nr. ${app.applicationNo} din ${app.registrationDate}`,
      `UAT ${app.uatName} (SIRUTA ${app.adminUnitId}), nr. cadastral ${app.cadastralNumber}`,
      `Solicitant: ${app.applicant}`,
      `Document ${pk} - generat de simulatorul portalului`,
    ]);
    const fileName = `${doc.documentType.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\W+/g, '_')}_${app.applicationNo.replace('/', '_')}.pdf`;
    res.type('application/pdf').setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
    res.send(pdf);
  });
  return r;
}
