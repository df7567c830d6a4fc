import { errors } from './errors';
/**
 * The one bounded-concurrency helper: runs `fn` over `items` with at most `limit` in flight;
 * results in input order. After a failure no item starts, the running ones end, then the first
 * error is thrown (so no child process or portal call outlives the caller).
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
  return out;
}

/**
 * The one per-user and overall cap on heavy work done inside a request (issue 13): `acquire`
 * takes a slot or throws 429 with the given Romanian text; the returned function gives it back
 * (once). Per process, like the rate limits (docs/architecture.md).
 */
export class UserSlots {
  private readonly users = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly limits: () => { perUser: number; total: number },
    private readonly refusal: { retryAfterSeconds: number; user: string; all: string },
  ) {}

  get active(): number {
    return this.total;
  }

  acquire(userId: string): () => void {
    const { perUser, total } = this.limits();
    const mine = this.users.get(userId) ?? 0;
    if (mine >= perUser) throw errors.rateLimited(this.refusal.retryAfterSeconds, this.refusal.user);
    if (this.total >= total) throw errors.rateLimited(this.refusal.retryAfterSeconds, this.refusal.all);
    this.users.set(userId, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.users.get(userId) ?? 1) - 1;
      if (left > 0) this.users.set(userId, left);
      else this.users.delete(userId);
    };
  }
}
