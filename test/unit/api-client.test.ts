/**
 * The pages' one API client (web/app/lib/api.ts): its route list is the OpenAPI document's, and
 * its one error mapping gives the message a user reads.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ROUTES_FILE, renderRoutes } from '../../scripts/openapi-types';
import { ApiError, BUSY_MESSAGE, apiUrl, errorFrom } from '../../web/app/lib/api';

describe('API client', () => {
  it('knows exactly the routes the OpenAPI document has (run `npm run openapi:types` after changing a route)', () => {
    expect(readFileSync(ROUTES_FILE, 'utf8')).toBe(renderRoutes());
  });

  it('shows the error body’s message with its fields, named in Romanian when the page names them', () => {
    const body = { error: 'bad_request', message: 'Cererea nu este validă.', details: [{ field: 'subject', problem: 'Obligatoriu.' }, { field: 'x', problem: 'Prea lung.' }] };
    const err = errorFrom(400, body, { fieldLabels: { subject: 'Subiect' } });
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('Cererea nu este validă. (Subiect: Obligatoriu.; x: Prea lung.)');
    expect(err.status).toBe(400);
    expect(err.code).toBe('bad_request');
  });

  it('falls back to the status when the answer has no error body, and to the busy message on a bare 429', () => {
    expect(errorFrom(502, null).message).toBe('Cererea a eșuat (502).');
    expect(errorFrom(429, null).message).toBe(BUSY_MESSAGE);
    expect(errorFrom(429, { error: 'rate_limited', message: 'Aveți deja o conversie DWG în lucru.' }).message).toBe('Aveți deja o conversie DWG în lucru.');
  });

  it('fills path parameters and drops absent query values', () => {
    expect(apiUrl('/api/registratura/entries/{id}/attachments/{attachmentId}', { id: 'a b', attachmentId: 7 })).toBe('/api/registratura/entries/a%20b/attachments/7');
    expect(apiUrl('/api/cfportal/orders', {}, { limit: 20, offset: 0, userId: undefined })).toBe('/api/cfportal/orders?limit=20&offset=0');
    expect(() => apiUrl('/api/watchlist/{id}')).toThrow('id');
  });
});
