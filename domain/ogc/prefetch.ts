/**
 * The next page, read ahead. A client walking a UAT (GDAL, QGIS) asks for page N+1 only after
 * it has parsed page N; reading N+1 from the store meanwhile overlaps the database's work with
 * the client's, which is most of what a whole-UAT copy waits on. One page ahead per user, a few
 * for everyone, each kept a short while: a walk that stops leaves at most one page to expire.
 *
 * The key holds the user (so the viewer rule of the page is the caller's), the collection, every
 * parameter as sent and the cursor; a page read ahead is as valid as one read on request (the
 * keyset walk sees every feature present throughout, whenever each page is read).
 */
import type { ItemsPage } from './features';

const TTL_MS = 30_000;
const MAX_PAGES = 6;

interface Entry {
  userId: string;
  page: Promise<ItemsPage>;
  at: number;
  release: () => void;
}

export class PagePrefetch {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = TTL_MS,
    private readonly maxPages = MAX_PAGES,
  ) {}

  private sweep(now: number): void {
    for (const [key, e] of this.entries) {
      if (now - e.at > this.ttlMs) this.drop(key, e);
    }
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    // A read still running keeps its slot until it settles.
    e.page.then(e.release, e.release);
  }

  /** The page read ahead for this key, if any (taken: a second request reads the store again). */
  take(key: string): Promise<ItemsPage> | undefined {
    this.sweep(Date.now());
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    e.page.then(e.release, e.release);
    return e.page;
  }

  /**
   * Starts reading `key`'s page unless the limits say no; `acquire` takes a slot of the shared
   * cap of item reads (or throws, and nothing is read). Replaces the user's previous read-ahead.
   */
  start(key: string, userId: string, acquire: () => () => void, read: () => Promise<ItemsPage>): void {
    const now = Date.now();
    this.sweep(now);
    for (const [k, e] of this.entries) if (e.userId === userId) this.drop(k, e);
    if (this.entries.size >= this.maxPages) return;
    let release: () => void;
    try {
      release = acquire();
    } catch {
      return;
    }
    const page = read();
    // Nobody may be waiting for it: a failure here is answered when (if) the page is asked for.
    page.catch(() => undefined);
    this.entries.set(key, { userId, page, at: now, release });
  }

  get size(): number {
    return this.entries.size;
  }
}
