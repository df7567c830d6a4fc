/**
 * Cookies of sign-in. `cgp_session` carries only the opaque session token (CONTRACT.md section
 * 2). `cgp_auth` carries the in-flight login (state, nonce, PKCE verifier, where to return) for
 * ten minutes, sealed (api/auth/sealed.ts, AES-256-GCM under a key derived from SESSION_SECRET):
 * the browser can neither read nor forge it.
 */
import type { CookieOptions, Request, Response } from 'express';
import { config } from '../../domain/config';
import { SESSION_ABSOLUTE_LIFETIME_SECONDS } from './sessionStore';
import { sealWith, unsealWith } from './sealed';

export const SESSION_COOKIE = 'cgp_session';
export const FLOW_COOKIE = 'cgp_auth';
export const FLOW_TTL_MS = 10 * 60 * 1000;

const secure = () => config.app.publicUrl.startsWith('https:');

export function sessionCookieOptions(): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: secure(), maxAge: SESSION_ABSOLUTE_LIFETIME_SECONDS * 1000 };
}

export function setSessionCookie(res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, sessionCookieOptions());
}

export function clearSessionCookie(res: Response): void {
  const { maxAge: _m, ...opts } = sessionCookieOptions();
  res.clearCookie(SESSION_COOKIE, opts);
}

export interface LoginFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  callbackUrl: string;
  /** Epoch ms. */
  exp: number;
}

// Path /auth: the cookie reaches only /auth/login and /auth/callback, not every page request.
const flowCookieOptions = (): CookieOptions => ({ httpOnly: true, sameSite: 'lax', path: '/auth', secure: secure() });

/** The login flow sealed for its cookie (api/auth/sealed.ts; its key is the flow cookie's own). */
export const seal = (value: unknown): string => sealWith(FLOW_COOKIE, value);
export const unseal = <T>(sealed: string): T | null => unsealWith<T>(FLOW_COOKIE, sealed);

export function setFlowCookie(res: Response, flow: LoginFlow): void {
  res.cookie(FLOW_COOKIE, seal(flow), { ...flowCookieOptions(), maxAge: FLOW_TTL_MS });
}

export function readFlowCookie(req: Request): LoginFlow | null {
  const raw = req.cookies?.[FLOW_COOKIE];
  if (typeof raw !== 'string') return null;
  const flow = unseal<LoginFlow>(raw);
  return flow && typeof flow.exp === 'number' && flow.exp > Date.now() ? flow : null;
}

export function clearFlowCookie(res: Response): void {
  res.clearCookie(FLOW_COOKIE, flowCookieOptions());
}

/**
 * Only a same-origin path may be a return target (no open redirect): it must start with one
 * slash, not `//` or `/\`, resolve to our own origin, and not point back into /auth. The check
 * is repeated on the normalised result because dot segments (`/.//x`, `/%2e//x`, `/./\x`)
 * collapse into a scheme-relative `//x` that a browser would follow to another host.
 */
export function safeCallbackUrl(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '' || raw.length > 2000) return '/';
  if (!isSinglySlashed(raw)) return '/';
  // Control characters (CR/LF, tab) could split headers or be stripped into `//` by URL parsing.
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return '/';
  }
  try {
    const base = 'http://callback.invalid';
    const u = new URL(raw, base);
    if (u.origin !== base) return '/';
    if (u.pathname === '/auth' || u.pathname.startsWith('/auth/')) return '/';
    const target = `${u.pathname}${u.search}${u.hash}`;
    return isSinglySlashed(target) && isSinglySlashed(fullyDecoded(u.pathname)) ? target : '/';
  } catch {
    return '/';
  }
}

/** Percent-decoding repeated until stable: a proxy that decodes `%2F` once more must not meet `//`. */
function fullyDecoded(path: string): string {
  let current = path;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/** A path a browser resolves on our own host: one slash, then neither a slash nor a backslash. */
function isSinglySlashed(path: string): boolean {
  return path.startsWith('/') && path[1] !== '/' && path[1] !== '\\';
}
