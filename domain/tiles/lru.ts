/**
 * A small LRU bounded by entry count and by total bytes, on Map's insertion order (a get moves
 * the entry to the end; eviction takes from the front). Rendered tiles are immutable per data
 * version, so entries never need updating, only evicting.
 */
export class ByteLru {
  private map = new Map<string, Buffer>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string): Buffer | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes) return;
    const old = this.map.get(key);
    if (old) {
      this.bytes -= old.length;
      this.map.delete(key);
    }
    this.map.set(key, value);
    this.bytes += value.length;
    while (this.map.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.bytes -= this.map.get(oldest.value)!.length;
      this.map.delete(oldest.value);
    }
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }

  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.map.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }
}
