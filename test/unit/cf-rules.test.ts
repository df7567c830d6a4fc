/** Pure rules of the CF and RGI areas, table-driven. */
import { describe, expect, test } from '@jest/globals';
import { CF_VALIDITY_MS, extractView } from '../../domain/cfportal/extracts';
import { accountKey } from '../../domain/cfportal/session';
import { extractFileName } from '../../domain/cfportal/pipeline';
import { batchReadyNotices } from '../../domain/cfportal/rules';
import { uiState } from '../../domain/cfportal/rules';
import { rgiFileName, rgiOrgUnitId } from '../../domain/landreg/rgi';

const NOW = new Date('2026-03-01T10:00:00Z');

describe('CF extract UI state (CONTRACT.md section 3)', () => {
  test.each([
    ['pending', null, 'processing'],
    ['cart', null, 'processing'],
    ['submitted', null, 'processing'],
    ['processing', null, 'processing'],
    ['downloading', null, 'processing'],
    ['completed', new Date(NOW.getTime() + 1), 'valid'],
    ['completed', NOW, 'expired'],
    ['completed', new Date(NOW.getTime() - CF_VALIDITY_MS), 'expired'],
    ['failed', null, 'failed'],
    ['cancelled', null, 'failed'],
  ] as const)('%s expiring %s is %s', (status, expiresAt, state) => {
    expect(uiState(status, expiresAt, NOW)).toBe(state);
  });
});

describe('names', () => {
  test.each([
    [{ nrCadastral: '50123', uatName: 'Sfântu Gheorghe', version: 1 }, 'Extras_CF_50123_Sfântu-Gheorghe_v1.pdf'],
    [{ nrCadastral: '1/2', uatName: null, version: 3 }, 'Extras_CF_1-2_v3.pdf'],
  ])('extract file name of %j', (e, name) => {
    expect(extractFileName(e)).toBe(name);
  });

  test.each([
    ['Extras de carte funciară pentru informare', '12345/2024', 'Extras_de_carte_funciara_pentru_informare_12345_2024.pdf'],
    ['Încheiere', '7/2023', 'Incheiere_7_2023.pdf'],
    ['Plan de amplasament și delimitare', '42/2026', 'Plan_de_amplasament_si_delimitare_42_2026.pdf'],
  ])('RGI document %s of %s is %s', (docType, appNo, name) => {
    expect(rgiFileName(docType, appNo)).toBe(name);
  });

  test('the RGI organisation unit is countyId * 1000 + 2, and an account is a workflow-id scope', () => {
    expect(rgiOrgUnitId(145)).toBe(145_002);
    expect(accountKey('Birou:CF Ana')).toBe('birou_cf_ana');
  });
});

describe('CF numbers are personal data', () => {
  const row = {
    id: '00000000-0000-4000-8000-000000000001', userId: 'u1', type: 'portal', pdfData: null, adminOrderedBy: null, nrCadastral: '50123',
    siruta: 63394, workspacePk: 145, orderId: 'O1', status: 'completed', version: 1, issuedAt: NOW, expiresAt: new Date(NOW.getTime() + CF_VALIDITY_MS),
    s3Key: 'cf/O1/x.pdf', documentName: 'x.pdf', error: null, createdAt: NOW, updatedAt: NOW, currentStep: 'done', stepNo: 11, batchSize: 1,
    portalAccount: 'a', portalOrderId: 'C1', portalItemId: 'I1', portalDocumentId: 'D1', cfNumber: '123456', uatName: 'Sfântu Gheorghe',
    submitIntentAt: NOW, submittedAt: NOW, submitSentAt: NOW, reconcileAt: null,
  };
  test('hidden for restricted viewers, shown otherwise; the download URL only for a stored file', () => {
    expect(extractView(row, { hidePersonal: true, now: NOW })).toMatchObject({ cfNumber: null, state: 'valid', downloadUrl: `/api/cfportal/download?id=${row.id}` });
    expect(extractView(row, { hidePersonal: false, now: NOW }).cfNumber).toBe('123456');
    expect(extractView({ ...row, s3Key: null }, { hidePersonal: false, now: NOW }).downloadUrl).toBeNull();
  });
});

describe('ready notices of a finished batch (issue 30: one per batch, not one per extract)', () => {
  const e = (extractId: string, userId: string | null, nrCadastral: string, uatName: string | null = 'Florești') => ({ extractId, userId, nrCadastral, uatName });

  test('three extracts of one orderer make one notice naming the three parcels', () => {
    const n = batchReadyNotices('01ORDER', [e('x1', 'dan', '1001'), e('x2', 'dan', '1002', null), e('x3', 'dan', '1003')]);
    expect(n).toHaveLength(1);
    expect(n[0]).toMatchObject({ userId: 'dan', type: 'cf-extract-ready', title: '3 extrase CF gata', link: '/parcel-sync?tab=epay', idempotencyKey: 'cf-extract-ready:01ORDER:dan' });
    expect(n[0].body).toBe('Extrasele de carte funciară pentru parcelele 1001 (Florești), 1002, 1003 (Florești) sunt disponibile 30 de zile.');
  });

  test('one extract links to its parcel; extracts without an orderer notify nobody', () => {
    const n = batchReadyNotices('01ORDER', [e('x1', 'ana', '77/1'), e('x2', null, '78')]);
    expect(n).toEqual([
      {
        userId: 'ana',
        type: 'cf-extract-ready',
        title: 'Extras CF gata: 77/1',
        body: 'Extrasul de carte funciară pentru parcela 77/1 (Florești) este disponibil 30 de zile.',
        link: '/parcel-sync?tab=epay&cad=77%2F1',
        idempotencyKey: 'cf-extract-ready:01ORDER:ana',
      },
    ]);
  });
});
