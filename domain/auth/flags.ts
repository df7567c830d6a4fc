/**
 * Feature flags of spec 5.6 and the admin rule of CONTRACT.md section 2, evaluated once per
 * sign-in into the session. Pure: the environment arrives as `FlagSettings` (config.flags).
 */
export interface FlagSettings {
  /** USE_CENTRAL_API=1: the central API path for everyone. */
  useCentralApi: boolean;
  /** CENTRAL_API_PILOT_USERS: the central API path per user. */
  centralApiPilotUsers: readonly string[];
  /** BASIC_PANEL_USERS. */
  basicPanelUsers: readonly string[];
  /** PANEL_BASIC_GLOBAL=1. */
  panelBasicGlobal: boolean;
  /** PORTAL_ONLY_USERS. */
  portalOnlyUsers: readonly string[];
  /** ADMIN_EMAILS. */
  adminEmails: readonly string[];
}

export interface FlagIdentity {
  email: string;
  groups: readonly string[];
  /** The `email_verified` claim: lists that GRANT something trust the e-mail only when true. */
  emailVerified: boolean;
}

export interface SessionFlags {
  useCentralApi: boolean;
  basicPanel: boolean;
  isAdmin: boolean;
}

const has = (list: readonly string[], email: string) => list.some((e) => e.trim().toLowerCase() === email);

/**
 * - useCentralApi: USE_CENTRAL_API or a pilot user, but never a PORTAL_ONLY_USERS member. The
 *   spec leaves PORTAL_ONLY_USERS' effect open (5.6); our decision (CONTRACT.md section 2): it
 *   wins over both the global switch and the pilot list, so these users keep the legacy portal
 *   path (and its write routes) whatever else is configured.
 * - basicPanel: PANEL_BASIC_GLOBAL or a BASIC_PANEL_USERS member.
 * - isAdmin: the `admin` group claim or an ADMIN_EMAILS member.
 * E-mails compare case-insensitively. The lists that grant something (ADMIN_EMAILS, the pilot
 * list) count an e-mail only when the identity provider says it is verified: anyone can create an
 * account under someone else's unverified address at some providers. The lists that restrict
 * (basic panel, portal-only) apply whatever the claim says.
 */
export function evaluateFlags(identity: FlagIdentity, settings: FlagSettings): SessionFlags {
  const email = identity.email.trim().toLowerCase();
  const portalOnly = has(settings.portalOnlyUsers, email);
  const trusted = identity.emailVerified;
  return {
    useCentralApi: !portalOnly && (settings.useCentralApi || (trusted && has(settings.centralApiPilotUsers, email))),
    basicPanel: settings.panelBasicGlobal || has(settings.basicPanelUsers, email),
    isAdmin: identity.groups.includes('admin') || (trusted && has(settings.adminEmails, email)),
  };
}

/**
 * Development bypass (spec 5.1, CONTRACT.md section 2): a stub user instead of sign-in, only when
 * NODE_ENV is exactly `development` AND AUTH_DEV_BYPASS=1 was asked for explicitly. Production
 * and tests never bypass, whatever AUTH_DEV_BYPASS says.
 */
export function devBypassEnabled(nodeEnv: string | undefined, bypassRequested: boolean): boolean {
  return nodeEnv === 'development' && bypassRequested;
}
