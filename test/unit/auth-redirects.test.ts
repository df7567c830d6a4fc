import { safeCallbackUrl, seal, unseal } from '../../api/auth/cookies';
import { isGuardedPath } from '../../api/auth/pageGuard';

describe('the return target after sign-in', () => {
  test.each([
    ['a page path with its query is kept', '/harta?uat=54975&z=12', '/harta?uat=54975&z=12'],
    ['the home page is kept', '/', '/'],
    ['an absolute URL falls back to the home page', 'https://evil.example/x', '/'],
    ['a protocol-relative URL falls back to the home page', '//evil.example/x', '/'],
    ['a backslash trick falls back to the home page', '/\\evil.example/x', '/'],
    ['a tab that URL parsing would drop falls back to the home page', '/\t/evil.example', '/'],
    ['a header-splitting newline falls back to the home page', '/x\r\nSet-Cookie: a=b', '/'],
    ['a relative path without a slash falls back to the home page', 'harta', '/'],
    ['a target inside /auth falls back to the home page (no login loop)', '/auth/login?callbackUrl=/', '/'],
    ['a missing target is the home page', undefined, '/'],
    ['a repeated query parameter (array) is the home page', ['/a', '/b'], '/'],
    ['a dot segment before a double slash falls back to the home page', '/.//evil.example/x', '/'],
    ['an encoded dot segment before a double slash falls back to the home page', '/%2e//evil.example/x', '/'],
    ['an upper-case encoded dot segment falls back to the home page', '/%2E//evil.example/x', '/'],
    ['a dot segment before a backslash falls back to the home page', '/./\\evil.example/x', '/'],
    ['two dot segments up to a double slash fall back to the home page', '/a/../..//evil.example/x', '/'],
    ['a parent segment before a double slash falls back to the home page', '/x/..//evil.example', '/'],
    ['an encoded double slash falls back to the home page', '/%2F%2Fevil.example/x', '/'],
    ['an encoded backslash falls back to the home page', '/%5Cevil.example/x', '/'],
    ['a twice-encoded double slash falls back to the home page', '/%252F%252Fevil.example', '/'],
    ['an encoded leading slash falls back to the home page', '%2F%2Fevil.example', '/'],
    ['a backslash pair falls back to the home page', '\\\\evil.example', '/'],
    ['a slash-backslash after a dot segment falls back to the home page', '/.\\/evil.example', '/'],
    ['a javascript: URL falls back to the home page', 'javascript:alert(1)', '/'],
    ['a javascript: URL after a slash stays a path on our host', '/javascript:alert(1)', '/javascript:alert(1)'],
    ['an https URL with our own-looking path falls back to the home page', 'https://evil.example/harta', '/'],
    ['a scheme-less host with credentials falls back to the home page', '//user@evil.example', '/'],
    ['a data: URL falls back to the home page', 'data:text/html,<script>alert(1)</script>', '/'],
    ['a dot segment inside a page path is resolved and kept', '/registratura/./intrari', '/registratura/intrari'],
    ['a fragment is kept', '/harta#12/45/25', '/harta#12/45/25'],
  ])('%s', (_name, input, expected) => {
    expect(safeCallbackUrl(input)).toBe(expected);
  });
});

describe('which paths the page guard protects', () => {
  test.each([
    ['/', true],
    ['/harta', true],
    ['/registratura/intrari/12', true],
    ['/api/anything', false],
    ['/auth/login', false],
    ['/tiles/overview/3/4/5.pbf', false],
    ['/assets/entry.client-abc.js', false],
    ['/favicon.ico', false],
    ['/apidocs', true],
  ])('%s guarded: %s', (path, expected) => {
    expect(isGuardedPath(path)).toBe(expected);
  });
});

describe('the sealed login-flow cookie', () => {
  it('opens what it sealed', () => {
    const flow = { state: 's', nonce: 'n', codeVerifier: 'v', callbackUrl: '/harta', exp: 1 };
    expect(unseal(seal(flow))).toEqual(flow);
  });

  it('refuses a value changed by the browser', () => {
    const sealed = seal({ callbackUrl: '/' });
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1] ^= 1;
    expect(unseal(bytes.toString('base64url'))).toBeNull();
    expect(unseal('garbage')).toBeNull();
  });
});
