/**
 * A browser for sign-in tests without Chromium: fetch plus one cookie jar per origin (paths
 * ignored), redirects followed by hand, the identity provider's real login form submitted.
 */

export interface BrowserRequestInit {
  method?: string;
  form?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
}

export class Browser {
  private jar = new Map<string, Map<string, string>>();
  /** Every response seen, with its Set-Cookie lines, for checking cookie attributes. */
  hops: Array<{ url: string; status: number; setCookie: string[]; location: string | null }> = [];

  constructor(readonly appUrl: string) {}

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(new URL(origin).origin)?.get(name);
  }

  /** This browser's own row of app_sessions (by its cookie: other suites sign the same users in). */
  async sessionId(): Promise<string> {
    // Imported late: suites set the environment that config reads before importing our modules.
    const [{ SESSION_COOKIE }, { sessionIdFor }] = await Promise.all([import('../../api/auth/cookies'), import('../../api/auth/sessionStore')]);
    const token = this.cookie(this.appUrl, SESSION_COOKIE);
    if (!token) throw new Error('this browser has no session cookie');
    return sessionIdFor(token);
  }

  private store(url: URL, lines: string[]): void {
    const cookies = this.jar.get(url.origin) ?? new Map<string, string>();
    for (const line of lines) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k, v] = a.trim().split('=');
        if (k.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (k.toLowerCase() === 'expires') return new Date(a.trim().slice(8)).getTime() <= Date.now();
        return false;
      });
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    this.jar.set(url.origin, cookies);
  }

  async request(input: string | URL, init: BrowserRequestInit = {}): Promise<Response> {
    const url = new URL(input, this.appUrl);
    const cookies = this.jar.get(url.origin);
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (cookies?.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const method = init.method ?? (body ? 'POST' : 'GET');
    // A browser names the page's origin on every write; here each form is posted from its own site.
    if (method !== 'GET' && method !== 'HEAD' && !Object.keys(headers).some((h) => h.toLowerCase() === 'origin')) headers.origin = url.origin;
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const setCookie = res.headers.getSetCookie();
    this.hops.push({ url: url.href, status: res.status, setCookie, location: res.headers.get('location') });
    this.store(url, setCookie);
    return res;
  }

  /** Follows redirects (GET after each, as browsers do after 302/303) up to a final answer. */
  async browse(input: string | URL, init: BrowserRequestInit = {}): Promise<{ res: Response; url: string }> {
    let url = new URL(input, this.appUrl);
    let res = await this.request(url, init);
    for (let i = 0; i < 15 && res.status >= 300 && res.status < 400; i++) {
      await res.arrayBuffer();
      url = new URL(res.headers.get('location')!, url);
      res = await this.request(url);
    }
    return { res, url: url.href };
  }

  /** The whole sign-in: our /auth/login, the IdP's form, the credentials, back to the app. */
  async signIn(username: string, password: string, callbackUrl = '/') {
    const form = await this.browse(`${this.appUrl}/auth/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
    const html = await form.res.text();
    if (form.res.status !== 200 || !html.includes('name="username"')) {
      throw new Error(`no login form (${form.res.status} at ${form.url})`);
    }
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1];
    return this.browse(new URL(action, form.url), { form: { username, password } });
  }

  session() {
    return this.request(`${this.appUrl}/api/auth/session`);
  }
}
