/**
 * The users of the development identity provider (CONTRACT.md section 2). Each signs in with
 * `parola-<localpart>`. `enrichmentScope: undefined` means the claim is absent from every token
 * (radu: the central API answers 403 to him, spec 5.5).
 */
export interface SimUser {
  sub: string;
  email: string;
  password: string;
  name: string;
  company: 'B' | 'U' | 'S' | 'G';
  groups: string[];
  enrichmentScope?: 'full' | 'basic' | 'none';
}

function user(localpart: string, name: string, company: SimUser['company'], groups: string[], enrichmentScope?: SimUser['enrichmentScope']): SimUser {
  return {
    // Opaque but stable, so sessions and records keyed by user id survive simulator restarts.
    sub: `usr-${localpart}`,
    email: `${localpart}@birou.ro`,
    password: `parola-${localpart}`,
    name,
    company,
    groups,
    enrichmentScope,
  };
}

export const SIM_USERS: readonly SimUser[] = [
  user('ana', 'Ana Mărgărit', 'B', ['admin'], 'full'),
  user('dan', 'Dan Țurcanu', 'U', [], 'full'),
  user('ioana', 'Ioana Ștefănescu', 'S', [], 'basic'),
  user('mihai', 'Mihai Brâncoveanu', 'G', [], 'full'),
  user('radu', 'Radu Sîrbu', 'B', [], undefined),
  user('elena', 'Elena Dumitrașcu', 'B', [], 'full'),
];

/** Accepts the full e-mail or its local part, case-insensitively (what people type). */
export function findUserByLogin(login: string): SimUser | undefined {
  const l = login.trim().toLowerCase();
  return SIM_USERS.find((u) => u.email === l || u.email.split('@')[0] === l);
}

export function findUserBySub(sub: string): SimUser | undefined {
  return SIM_USERS.find((u) => u.sub === sub);
}

/** The identity claims of a user; `enrichment_scope` only when the user has one. */
export function userClaims(u: SimUser): Record<string, unknown> {
  return {
    sub: u.sub,
    email: u.email,
    email_verified: true,
    name: u.name,
    company: u.company,
    groups: u.groups,
    ...(u.enrichmentScope ? { enrichment_scope: u.enrichmentScope } : {}),
  };
}
