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
