/**
 * web/app/lib/forms.server.ts `readSmallForm`: a page action's form read within a byte cap. A
 * browser's form (urlencoded or multipart) is read as `request.formData()` would; anything else is
 * a thrown Response the route's ErrorBoundary shows: 400 not a form, 413 past the cap.
 */
import { describe, expect, test } from '@jest/globals';
import { readSmallForm, SMALL_FORM_MAX_BYTES } from '../../web/app/lib/forms.server';

const post = (contentType: string | null, body: BodyInit | null, init: RequestInit = {}) =>
  new Request('http://pagina.test/infrastructura-harti', {
    method: 'POST',
    headers: contentType ? { 'content-type': contentType } : {},
    body,
    ...init,
  });

/** The Response readSmallForm throws, with its text. */
async function refusal(request: Request): Promise<{ status: number; text: string }> {
  const thrown = await readSmallForm(request).then(
    () => null,
    (err: unknown) => err,
  );
  expect(thrown).toBeInstanceOf(Response);
  const res = thrown as Response;
  return { status: res.status, text: await res.text() };
}

describe('readSmallForm', () => {
  test('a browser’s urlencoded or multipart form is read', async () => {
    expect((await readSmallForm(post('application/x-www-form-urlencoded;charset=UTF-8', 'intent=backup&x=%C8%99'))).get('x')).toBe('ș');
    const form = new FormData();
    form.set('intent', 'rebuild');
    const multipart = new Request('http://pagina.test/', { method: 'POST', body: form });
    expect((await readSmallForm(multipart)).get('intent')).toBe('rebuild');
    expect([...(await readSmallForm(post('application/x-www-form-urlencoded', ''))).keys()]).toEqual([]);
  });

  test('a body that is not a form is a 400 in Romanian', async () => {
    for (const r of [
      post('application/json', '{'),
      post(null, 'intent=rebuild'),
      post('text/plain', 'intent=rebuild'),
      post('multipart/form-data; boundary=frontiera', '--frontiera\r\nnu este un formular'),
      post('multipart/form-data', 'fără frontieră'),
    ]) {
      expect(await refusal(r)).toEqual({ status: 400, text: 'Cererea nu conține un formular valid.' });
    }
  });

  test('past the cap is a 413: a declared length before reading, a streamed body as it arrives', async () => {
    const tooBig = 'a='.padEnd(SMALL_FORM_MAX_BYTES + 1, 'a');
    expect(await refusal(post('application/x-www-form-urlencoded', tooBig))).toEqual({ status: 413, text: 'Cererea depășește dimensiunea maximă permisă.' });
    // A declared length past the cap (as the Express adapter passes it on) is refused unread.
    const declared = post('application/x-www-form-urlencoded', 'intent=rebuild', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(40 * 1024 * 1024) },
    });
    expect((await refusal(declared)).status).toBe(413);
    // No Content-Length: 1 MB in 1 KB chunks, counted as they arrive; the rest is read and dropped.
    let left = 1024;
    const chunked = new ReadableStream<Uint8Array>({
      pull(c) {
        if (left-- > 0) c.enqueue(new Uint8Array(1024).fill(0x61));
        else c.close();
      },
    });
    const streamed = post('application/x-www-form-urlencoded', chunked, { duplex: 'half' } as RequestInit);
    expect((await refusal(streamed)).status).toBe(413);
    // Exactly at the cap is still a form.
    expect((await readSmallForm(post('application/x-www-form-urlencoded', tooBig.slice(0, SMALL_FORM_MAX_BYTES)))).get('a')).toHaveLength(SMALL_FORM_MAX_BYTES - 2);
  });
});
