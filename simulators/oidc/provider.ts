/**
 * Development identity provider (CONTRACT.md section 2) on oidc-provider 9: the six users of the
 * contract, a plain Romanian login form, consent skipped for our first-party client, refresh
 * tokens always issued and rotated (single use, spec 5.4), and access tokens as JWTs for the
 * central API resource, signed with this provider's JWKS and carrying company, groups and
 * enrichment_scope so the central API simulator can verify and authorise them.
 *
 * Control endpoints under /__sim (EXTERNAL-SERVICES.md): GET/DELETE /__sim/requests (counts:
 * `token:authorization_code`, `token:refresh_token`, `token:<grant>:error`, `login:ok`,
 * `login:failed`, plus `route:<METHOD> <path>` for every call), POST /__sim/reset (forgets every
 * grant, token and IdP session, so existing refresh tokens fail), POST/DELETE /__sim/faults.
 */
import { keepAlive } from '../shared/keepAlive';
import http from 'node:http';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import Provider, { errors as oidcErrors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { simSettings } from '../shared/settings';
import { SimControl } from '../shared/control';
import { MemoryStore, memoryAdapter } from './adapter';
import { findUserByLogin, findUserBySub, userClaims, type SimUser } from './users';

/** The resource indicator of the central GIS API; access tokens are issued for it by default. */
export const CENTRAL_API_RESOURCE = 'urn:geoportal:central-api';
const CENTRAL_API_SCOPE = 'central-api';
/** Scopes our client gets without a consent screen (first-party). */
const FIRST_PARTY_SCOPES = 'openid email profile offline_access';

const DAY = 24 * 60 * 60;

export interface OidcSimOptions {
  port: number;
  /** Defaults to http://localhost:<port>. */
  issuer?: string;
  /** Interface to bind; all interfaces when omitted. */
  host?: string;
  /** Access-token lifetime; OIDC_ACCESS_TOKEN_TTL (60 s). Small values exercise refresh. */
  accessTokenTtlSeconds?: number;
  clientId?: string;
  clientSecret?: string;
  /** The service's public URL; its /auth/callback and / are the registered redirect targets. */
  publicUrl?: string;
}

export interface OidcSim {
  url: string;
  issuer: string;
  provider: Provider;
  control: SimControl;
  close(): Promise<void>;
}

/** localhost and 127.0.0.1 name the same service in development; register both spellings. */
function urlVariants(u: string): string[] {
  const url = new URL(u);
  const out = [url.toString().replace(/\/$/, '')];
  if (url.hostname === 'localhost' || url.hostname === '127.0.0.1') {
    const other = new URL(url.toString());
    other.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    out.push(other.toString().replace(/\/$/, ''));
  }
  return out;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0}main{max-width:360px;margin:10vh auto;background:#fff;padding:24px 28px;border-radius:6px;box-shadow:0 1px 3px rgba(0,0,0,.2)}label{display:block;margin:12px 0 4px}input{width:100%;box-sizing:border-box;padding:8px;font-size:15px}button{margin-top:18px;width:100%;padding:10px;font-size:15px;background:#1d4f91;color:#fff;border:0;border-radius:4px;cursor:pointer}.err{color:#b00020;background:#fdecee;padding:8px;border-radius:4px}';

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="ro"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${PAGE_STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export function loginPage(uid: string, opts: { error?: string; username?: string } = {}): string {
  return page(
    'Autentificare - Geoportal cadastral',
    `<h1>Autentificare</h1>
<p>Conectați-vă cu contul de birou pentru a continua în geoportalul cadastral.</p>
${opts.error ? `<p class="err" role="alert">${esc(opts.error)}</p>` : ''}
<form method="post" action="/interaction/${esc(uid)}/login" autocomplete="off">
<label for="username">Utilizator (adresă de e-mail)</label>
<input id="username" name="username" type="text" required autofocus value="${esc(opts.username ?? '')}">
<label for="password">Parolă</label>
<input id="password" name="password" type="password" required>
<button type="submit">Intră în cont</button>
</form>`,
  );
}

export async function startOidcProvider(opts: OidcSimOptions): Promise<OidcSim> {
  const issuer = (opts.issuer ?? `http://localhost:${opts.port}`).replace(/\/$/, '');
  const ttl = opts.accessTokenTtlSeconds ?? simSettings.oidc.accessTokenTtlSeconds;
  const publicUrl = opts.publicUrl ?? simSettings.oidc.clientUrl;
  const clientId = opts.clientId ?? simSettings.oidc.clientId;
  const clientSecret = opts.clientSecret ?? simSettings.oidc.clientSecret;

  // A fresh signing key per process: the central API fetches the JWKS from the issuer, and a
  // restart forgets every grant anyway, so nothing outlives the key.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: `sim-${randomUUID().slice(0, 8)}`, use: 'sig', alg: 'RS256' };

  const store = new MemoryStore();
  const control = new SimControl('furnizorul de identitate');

  const oidcConfig: Configuration = {
    adapter: memoryAdapter(store),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        client_name: 'Geoportal cadastral',
        redirect_uris: urlVariants(publicUrl).map((u) => `${u}/auth/callback`),
        post_logout_redirect_uris: urlVariants(publicUrl).map((u) => `${u}/`),
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // openid-client's default client authentication.
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwk as any] },
    cookies: { keys: ['oidc-sim-cookie-key-not-a-secret-0123456789'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'company', 'groups', 'enrichment_scope'],
    },
    // The ID token carries every granted claim, so the service needs no userinfo call.
    conformIdTokenClaims: false,
    findAccount: async (_ctx, sub) => {
      const u = findUserBySub(sub);
      if (!u) return undefined;
      return { accountId: u.sub, claims: async () => userClaims(u) as { sub: string } };
    },
    // First-party client: every login gets the full grant, so no consent screen ever shows.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { client, session, provider } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = (ctx.oidc.result?.consent as { grantId?: string } | undefined)?.grantId ?? session.grantIdFor(client.clientId);
      const grant =
        (grantId ? await provider.Grant.find(grantId) : undefined) ??
        new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope(FIRST_PARTY_SCOPES);
      grant.addResourceScope(CENTRAL_API_RESOURCE, CENTRAL_API_SCOPE);
      await grant.save();
      return grant;
    },
    // Refresh tokens always, without offline_access (which OIDC only grants with prompt=consent).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Single-use refresh tokens (spec 5.4): each refresh answers a new one, the old one dies.
    rotateRefreshToken: true,
    // Refresh tokens outlive the IdP browser session (the service's session lasts 30 days).
    expiresWithSession: async () => false,
    pkce: { required: () => true },
    extraTokenClaims: async (_ctx, token) => {
      const u = 'accountId' in token && token.accountId ? findUserBySub(token.accountId) : undefined;
      if (!u) return undefined;
      const { sub: _sub, email_verified: _ev, ...claims } = userClaims(u);
      return claims;
    },
    ttl: {
      AccessToken: ttl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Grant: 30 * DAY,
      RefreshToken: 30 * DAY,
      Session: 30 * DAY,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      // A client may revoke only its own tokens (the service revokes its refresh token at logout).
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => CENTRAL_API_RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== CENTRAL_API_RESOURCE) throw new oidcErrors.InvalidTarget();
          return {
            scope: CENTRAL_API_SCOPE,
            audience: CENTRAL_API_RESOURCE,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
      rpInitiatedLogout: {
        enabled: true,
        // No "are you sure?" page: the service already asked; the form submits itself.
        logoutSource: async (ctx, form) => {
          ctx.body = page(
            'Deconectare',
            `<h1>Deconectare</h1>${form}
<input type="hidden" name="logout" value="yes" form="op.logoutForm">
<button type="submit" form="op.logoutForm">Continuă deconectarea</button>
<script>document.getElementById('op.logoutForm').submit()</script>`,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.body = page('Deconectat', '<h1>V-ați deconectat</h1><p>Sesiunea a fost închisă.</p>');
        },
      },
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page(
        'Eroare de autentificare',
        `<h1>Eroare de autentificare</h1><p>${esc(String(out.error_description ?? out.error))}</p>`,
      );
    },
  };

  const provider = new Provider(issuer, oidcConfig);
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    control.hit(`token:${String(ctx.oidc.params?.grant_type ?? 'unknown')}`);
  });
  provider.on('grant.error', (ctx: KoaContextWithOIDC) => {
    control.hit(`token:${String(ctx.oidc.params?.grant_type ?? 'unknown')}:error`);
  });

  const app = express();
  app.disable('x-powered-by');
  app.use(control.faultMiddleware());
  app.use(control.routeCounter());
  app.use(
    '/__sim',
    control.router({
      onReset: () => {
        store.clear();
      },
    }),
  );

  const noStore = (_req: Request, res: Response, next: () => void) => {
    res.set('Cache-Control', 'no-store');
    next();
  };

  const expired = (res: Response) =>
    res
      .status(400)
      .type('html')
      .send(page('Sesiune expirată', '<h1>Sesiunea de autentificare a expirat</h1><p>Reveniți în aplicație și încercați din nou.</p>'));

  app.get('/interaction/:uid', noStore, async (req, res, next) => {
    try {
      const details = await provider.interactionDetails(req, res).catch(() => undefined);
      if (!details) return expired(res);
      if (details.prompt.name === 'login') {
        res.type('html').send(loginPage(details.uid));
        return;
      }
      // Only reachable if a grant lacks something loadExistingGrant adds: grant it silently.
      await provider.interactionFinished(req, res, { consent: {} }, { mergeWithLastSubmission: true });
    } catch (err) {
      next(err);
    }
  });

  app.post('/interaction/:uid/login', noStore, express.urlencoded({ extended: false, limit: '16kb' }), async (req, res, next) => {
    try {
      const details = await provider.interactionDetails(req, res).catch(() => undefined);
      if (!details) return expired(res);
      const username = String(req.body?.username ?? '');
      const password = String(req.body?.password ?? '');
      const u: SimUser | undefined = findUserByLogin(username);
      if (!u || u.password !== password) {
        control.hit('login:failed');
        res.type('html').send(loginPage(details.uid, { error: 'Utilizator sau parolă greșită.', username }));
        return;
      }
      control.hit('login:ok');
      await provider.interactionFinished(req, res, { login: { accountId: u.sub } }, { mergeWithLastSubmission: false });
    } catch (err) {
      next(err);
    }
  });

  app.use(provider.callback());

  const server = keepAlive(http.createServer(app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    url: issuer,
    issuer,
    provider,
    control,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
