/**
 * A per-process token bucket for portal calls. The landreg task queue's activity rate limit
 * bounds how many activities start; this bounds how many HTTP calls the activities (and the API
 * process) make, since one download activity fetches several pages.
 */
export class RateLimiter {
  private tokens: number;
  private last = Date.now();
  private queue: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }

  private drain = (): void => {
    this.timer = undefined;
    this.refill();
    while (this.queue.length && this.tokens >= 1) {
      this.tokens -= 1;
      this.queue.shift()!();
    }
    if (this.queue.length) this.timer = setTimeout(this.drain, Math.ceil(1000 / this.perSecond));
  };

  /** Resolves when a call may be made. */
  take(): Promise<void> {
    if (this.perSecond <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.queue.push(resolve);
      if (!this.timer) this.drain();
    });
  }
}
