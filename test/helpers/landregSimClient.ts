/**
 * A small HTTP client for tests of the land-registry simulator itself: session login, JSON calls
 * that must answer 200, the /__sim control endpoints and layer-query URLs, written the way a user
 * of the simulator (README paths only) would call it.
 */
import { config } from '../../domain/config';

export const API = '/eterra/api';

export class SimClient {
  cookie = '';

  constructor(readonly base: string) {}

  /** Logs in with form credentials and keeps the `JSESSIONID=…` cookie. */
  async login(): Promise<string> {
    const res = await fetch(`${this.base}${API}/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ j_username: config.landreg.username, j_password: config.landreg.password }),
    });
    if (res.status !== 200) throw new Error(`login answered ${res.status}`);
    this.cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    return this.cookie;
  }

  get(path: string, cookie = this.cookie): Promise<Response> {
    return fetch(`${this.base}${path}`, { headers: { cookie } });
  }

  async text(path: string): Promise<string> {
    const res = await this.get(path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    return res.text();
  }

  async json<T = any>(path: string): Promise<T> {
    return JSON.parse(await this.text(path)) as T;
  }

  async control<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}/__sim${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status !== 200) throw new Error(`${method} /__sim${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** The path of a layer query with `f=json` and the given parameters. */
  query(layer: string, params: Record<string, string>): string {
    return `${API}/map/rest/${layer}/query?${new URLSearchParams({ f: 'json', ...params })}`;
  }

  /**
   * Pages through a query as a GIS client does: resultOffset += page length until
   * exceededTransferLimit is absent. Returns every feature received (duplicates included) and
   * the pages' OBJECTID lists.
   */
  async pageAll(layer: string, params: Record<string, string>): Promise<{ features: any[]; pages: number[][] }> {
    const features: any[] = [];
    const pages: number[][] = [];
    for (let offset = 0; ; ) {
      const page = await this.json(this.query(layer, { ...params, resultOffset: String(offset) }));
      if (page.error) throw new Error(`query error: ${JSON.stringify(page.error)}`);
      features.push(...page.features);
      pages.push(page.features.map((f: any) => f.attributes.OBJECTID));
      offset += page.features.length;
      if (!page.exceededTransferLimit) return { features, pages };
      if (pages.length > 10_000) throw new Error('paging does not end');
    }
  }
}
