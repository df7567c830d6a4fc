/**
 * The administrator check, one way (issue 25): `defineRoute`'s `auth: 'admin'` uses requireAdmin;
 * a route where only some actions are the office's global settings (the tag-file push, replacing
 * the portal account) calls it itself. What a user started is read by its starter or an
 * administrator: domain/auth/ownership.ts.
 */
import { errors } from '../../domain/errors';
import type { SessionContext } from '../../domain/auth/rules';

export const ADMIN_ONLY_MESSAGE = 'Doar administratorii pot folosi această operațiune.';

/** 403 `forbidden` unless the caller is an administrator. */
export function requireAdmin(auth: Pick<SessionContext, 'isAdmin'> | undefined, message = ADMIN_ONLY_MESSAGE): void {
  if (!auth?.isAdmin) throw errors.forbidden(message);
}
