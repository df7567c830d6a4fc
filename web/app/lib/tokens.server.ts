/**
 * The loader of /instrumente/qgis: the user's tokens, the address QGIS connects to, and what the
 * ready QGIS project needs (the UATs it can be made for, the authentication entry it names); for
 * an administrator also every user's tokens (what GET /api/tokens?all=true answers).
 */
import { config } from '../../../domain/config';
import type { AppLoadContext } from '@remix-run/node';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS } from '../../../domain/auth/rules';
import { QGIS_AUTHCFG } from '../../../domain/ogc/rules';

export async function qgisAccessPage({ services }: Pick<AppLoadContext, 'services'>, caller: { userId: string; isAdmin: boolean }) {
  const { auth, ogc } = services;
  return {
    tokens: await auth.listTokens(caller.userId),
    everyUsersTokens: caller.isAdmin ? await auth.listTokens(caller.userId, { everyUser: true }) : null,
    ogcUrl: `${config.app.publicUrl.replace(/\/+$/, '')}/ogc`,
    defaultDays: DEFAULT_TOKEN_DAYS,
    maxDays: MAX_TOKEN_DAYS,
    /** A token stops signing in when its user has not signed in to the app for this long (api/auth/personalToken.ts). */
    identityDays: config.app.tokenIdentityMaxAgeDays,
    projectUats: await ogc.uatsWithParcels(),
    authcfg: QGIS_AUTHCFG,
  };
}
