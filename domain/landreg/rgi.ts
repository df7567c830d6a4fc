/**
 * RGI, the portal's registry of applications (spec 4.4): applications of a county's organisation
 * unit (`countyId * 1000 + 2`) and year, an application's details, its issued documents, and the
 * download, which needs the actor context and a confirm-view first and may find the document not
 * ready yet (`{blocked: true}`). Applicants are personal data: hidden from restricted viewers.
 */
import { errors } from '../errors';
import { PortalHttpError } from './errors';
import type { LandregClient } from './client';
import { stripDiacritics } from '../text/fold';

/** Spec 4.4: the RGI organisation unit id of a county. */
export const rgiOrgUnitId = (countyId: number) => countyId * 1000 + 2;

export interface RgiApplication {
  applicationId: number;
  applicationNo: string;
  registrationDate: string;
  applicationType: string;
  status: string;
  workspaceId: number;
  orgUnitId: number;
  adminUnitId: number;
  uatName: string;
  cadastralNumber: string;
  /** Null for viewers who may not see personal data. */
  applicant: string | null;
}

export interface RgiDocument {
  documentPk: number;
  documentTypeId: number;
  documentType: string;
  applicationNo: string;
  available: boolean;
}

const statusOf = (err: unknown) => (err instanceof PortalHttpError ? err.upstreamStatus : null);

/** The portal's "no such application/document" and "wrong workspace" are the caller's 404 and 400. */
async function ask<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (statusOf(err) === 404) throw errors.notFound('Cererea sau documentul nu există în RGI.');
    if (statusOf(err) === 400) throw errors.badRequest('Portalul a refuzat parametrii cererii RGI (județ, unitate sau an).');
    throw err;
  }
}

const redact = <T extends { applicant: string | null }>(a: T, hidePersonal: boolean): T => (hidePersonal ? { ...a, applicant: null } : a);

export async function rgiApplications(
  client: LandregClient,
  q: { workspaceId: number; year: number; page: number; size: number },
  hidePersonal: boolean,
) {
  const orgUnitId = rgiOrgUnitId(q.workspaceId);
  const r = await ask(() =>
    client.get<{ content: RgiApplication[]; totalElements: number; last: boolean }>('/rgi/applications', {
      workspaceId: q.workspaceId,
      orgUnitId,
      year: q.year,
      page: q.page,
      size: q.size,
    }),
  );
  return {
    workspaceId: q.workspaceId,
    orgUnitId,
    year: q.year,
    page: q.page,
    size: q.size,
    total: r.totalElements,
    last: r.last,
    items: r.content.map((a) => redact(a, hidePersonal)),
  };
}

export async function rgiDetails(client: LandregClient, applicationId: number, hidePersonal: boolean) {
  const a = await ask(() => client.get<RgiApplication & { history: Array<{ date: string; status: string }> }>(`/rgi/applications/${applicationId}`));
  return redact(a, hidePersonal);
}

export async function rgiIssuedDocs(client: LandregClient, applicationId: number, workspaceId: number): Promise<{ applicationId: number; workspaceId: number; items: RgiDocument[] }> {
  const items = await ask(() => client.get<RgiDocument[]>(`/rgi/applications/${applicationId}/issued-docs`, { workspaceId }));
  return { applicationId, workspaceId, items };
}

/** `<docType>_<appNo>.pdf`, diacritics removed, the rest of each part reduced to letters, digits and `_`. */
export function rgiFileName(docType: string, applicationNo: string): string {
  const plain = (s: string) =>
    stripDiacritics(s)
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
  return `${plain(docType)}_${plain(applicationNo)}.pdf`;
}

export type RgiDownload =
  | { blocked: true; steps: string[] }
  | { blocked: false; fileName: string; pdf: Buffer; steps: string[] };

/**
 * Spec 4.4: set the actor context (workspace, organisation unit), confirm the view, then download
 * by documentPk. A download refused with 403 (the portal session was renewed between the steps,
 * losing the context) runs the three steps once more; a 409 means the document is not ready.
 */
export async function rgiDownload(client: LandregClient, q: { workspaceId: number; applicationId: number; documentPk: number; documentTypeId?: number }): Promise<RgiDownload | null> {
  const steps: string[] = [];
  const docs = await rgiIssuedDocs(client, q.applicationId, q.workspaceId);
  const doc = docs.items.find((d) => d.documentPk === q.documentPk && (q.documentTypeId === undefined || d.documentTypeId === q.documentTypeId));
  if (!doc) return null;
  steps.push('issued-docs');
  const fileName = rgiFileName(doc.documentType, doc.applicationNo);
  for (let attempt = 1; ; attempt++) {
    await client.call('POST', '/rgi/actor-context', { form: { workspaceId: q.workspaceId, orgUnitId: rgiOrgUnitId(q.workspaceId) } });
    steps.push('actor-context');
    await client.call('POST', `/rgi/documents/${q.documentPk}/confirm-view`);
    steps.push('confirm-view');
    try {
      const ans = await client.call('GET', `/rgi/documents/${q.documentPk}/download`);
      steps.push('download');
      return { blocked: false, fileName, pdf: ans.bytes, steps };
    } catch (err) {
      if (statusOf(err) === 409) {
        steps.push('not-ready');
        return { blocked: true, steps };
      }
      if (statusOf(err) === 403 && attempt < 2) continue;
      throw err;
    }
  }
}
