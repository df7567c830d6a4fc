/**
 * "Deconectare" in the top bar (issue 30): shown to users with a session to end, not to the
 * development bypass's stub user (spec 5.1), whom signing out would show again at once.
 */
import { describe, expect, test } from '@jest/globals';
import { devStubContext } from '../../api/auth/session';
import { maySignOut } from '../../web/app/lib/auth.server';

describe('who may sign out', () => {
  test('the development stub user has no session to end', () => {
    expect(maySignOut(devStubContext())).toBe(false);
  });

  test('a signed-in user may', () => {
    expect(maySignOut({ sessionId: 'f3b1c0de5e551011' })).toBe(true);
  });
});
