/**
 * The /__sim control surface every simulator shares (spec EXTERNAL-SERVICES.md, "Control and
 * truth endpoints"): fault injection, request counting and reset. A simulator mounts
 * `control.faultMiddleware()` before its own routes and `control.router()` at /__sim.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { Prng, hashSeed } from './prng';

export interface Faults {
  maintenance: boolean;
  /** Probability 0..1 that a call answers 500. */
  errorRate: number;
  /** Added to every call. */
  latencyMs: number;
  /** Overrides the simulator's idle session lifetime while set. */
  sessionTtlSeconds?: number;
  /** Every n-th call is slow (slowMs extra). */
  slowEvery?: number;
  /** Extension: how slow a slowEvery call is; 2000 ms when not given. */
  slowMs?: number;
  /**
   * Extension (landreg): layer-query pages asked without `orderByFields` overlap, each page after
   * the first repeating the previous page's last feature ("duplicate pages").
   */
  duplicatePages?: boolean;
  /**
   * Extension (landreg): layer queries restricted to one of these UATs answer an ArcGIS error
   * (HTTP 200 with `{error}`), as a server does for a query it cannot run: one UAT failing while
   * the others work.
   */
  failSirutas?: number[];
  /**
   * Extension (landreg): layer queries restricted to one of these UATs wait, unanswered, until
   * the faults change so that the UAT is no longer listed: a sync of that UAT stays running for
   * exactly as long as a test needs, whatever the machine's speed.
   */
  holdSirutas?: number[];
  /**
   * Extension (cfportal): a submit is accepted (credits taken, cart emptied) but its answer is
   * lost (504) and the order appears in the order list only this many seconds later.
   */
  submitListedAfterSeconds?: number;
}

const faultsBody = z.object({
  maintenance: z.boolean().optional(),
  errorRate: z.number().min(0).max(1).optional(),
  latencyMs: z.number().min(0).optional(),
  sessionTtlSeconds: z.number().positive().optional(),
  slowEvery: z.number().int().positive().optional(),
  slowMs: z.number().min(0).optional(),
  duplicatePages: z.boolean().optional(),
  failSirutas: z.array(z.number().int().positive()).max(1000).optional(),
  holdSirutas: z.array(z.number().int().positive()).max(1000).optional(),
  submitListedAfterSeconds: z.number().min(0).max(86_400).optional(),
});

export const resetBody = z.object({
  seed: z.union([z.number(), z.string()]).optional(),
  scale: z.string().optional(),
});
export type ResetBody = z.infer<typeof resetBody>;

const NO_FAULTS: Faults = { maintenance: false, errorRate: 0, latencyMs: 0 };

export function maintenancePage(portalName: string): string {
  return `<!DOCTYPE html>
<html lang="ro"><head><meta charset="utf-8"><title>${portalName} - mentenanță</title></head>
<body><h1>Portalul este în mentenanță</h1>
<p>Ne cerem scuze, ${portalName} este temporar indisponibil din cauza lucrărilor de mentenanță programată. Vă rugăm să reveniți mai târziu.</p>
</body></html>`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SimControl {
  faults: Faults = { ...NO_FAULTS };
  private counts = new Map<string, number>();
  /** Calls answered by a fault (maintenance, `errorRate`) instead of a route: they never reach `counts`. */
  private faulted = 0;
  private callNo = 0;
  private errorDice = new Prng(hashSeed('faults'));
  /** Calls waiting for the faults to change (`holdSirutas`). */
  private faultWaiters: Array<() => void> = [];

  /**
   * `errorAnswer` (extension): how this simulator answers a call picked by `errorRate`; default a
   * JSON 500. A web-page system answers what such a site serves, e.g. an HTML error page.
   */
  constructor(
    private readonly portalName: string,
    private readonly opts: { errorAnswer?: (res: Response, callNo: number) => void } = {},
  ) {}

  /** Counts one call under `key` (see EXTERNAL-SERVICES.md for the query keys). */
  hit(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  countsObject(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  clearCounts(): void {
    this.counts.clear();
    this.faulted = 0;
  }

  clearFaults(): void {
    this.setFaults({ ...NO_FAULTS });
    this.callNo = 0;
    this.errorDice = new Prng(hashSeed('faults'));
  }

  private setFaults(next: Faults): void {
    this.faults = next;
    const waiters = this.faultWaiters;
    this.faultWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once `held()` is false, re-checked each time the faults change. */
  async whileHeld(held: () => boolean): Promise<void> {
    while (held()) await new Promise<void>((wake) => this.faultWaiters.push(wake));
  }

  /** Applies maintenance, latency, slow calls and random errors to every non-/__sim call. */
  faultMiddleware() {
    return async (req: Request, res: Response, next: NextFunction) => {
      if (req.path.startsWith('/__sim')) return next();
      const f = this.faults;
      this.callNo++;
      if (f.maintenance) {
        this.faulted++;
        res.status(503).type('html').send(maintenancePage(this.portalName));
        return;
      }
      let delay = f.latencyMs;
      if (f.slowEvery && this.callNo % f.slowEvery === 0) delay += f.slowMs ?? 2000;
      if (delay > 0) {
        // Extension: says which calls a fault slowed, so a test need not judge it by the clock.
        res.setHeader('X-Sim-Delay-Ms', String(delay));
        await sleep(delay);
      }
      if (f.errorRate > 0 && this.errorDice.next() < f.errorRate) {
        this.faulted++;
        if (this.opts.errorAnswer) return this.opts.errorAnswer(res, this.callNo);
        res.status(500).json({ status: 500, error: 'Internal Server Error', message: 'Eroare internă simulată' });
        return;
      }
      next();
    };
  }

  /**
   * Counts every non-/__sim call under `route:<METHOD> <route pattern>` once it is answered,
   * so tests can see logins, lists and downloads without each handler counting itself.
   */
  routeCounter() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.path.startsWith('/__sim')) return next();
      res.on('finish', () => {
        const pattern = (req.route?.path as string | undefined) ?? req.path;
        this.hit(`route:${req.method} ${req.baseUrl}${pattern}`);
      });
      next();
    };
  }

  /** The shared /__sim router; `extend` adds simulator-specific control routes. */
  router(opts: { onReset: (body: ResetBody) => Promise<void> | void; extend?: (r: Router) => void }): Router {
    const r = express.Router();
    r.use(express.json({ limit: '1mb' }));
    r.get('/faults', (_req, res) => {
      res.json(this.faults);
    });
    r.post('/faults', (req, res) => {
      const parsed = faultsBody.safeParse(req.body ?? {});
      if (!parsed.success) {
        res.status(400).json({ error: 'invalid_faults', issues: parsed.error.issues });
        return;
      }
      this.setFaults({ ...this.faults, ...parsed.data });
      res.json(this.faults);
    });
    r.delete('/faults', (_req, res) => {
      this.clearFaults();
      res.json(this.faults);
    });
    r.get('/requests', (_req, res) => {
      res.json({ counts: this.countsObject(), faulted: this.faulted });
    });
    r.delete('/requests', (_req, res) => {
      this.clearCounts();
      res.json({ counts: {}, faulted: 0 });
    });
    r.post('/reset', async (req, res, next) => {
      const parsed = resetBody.safeParse(req.body ?? {});
      if (!parsed.success) {
        res.status(400).json({ error: 'invalid_reset', issues: parsed.error.issues });
        return;
      }
      try {
        await opts.onReset(parsed.data);
        this.clearFaults();
        this.clearCounts();
        res.json({ ok: true });
      } catch (err) {
        next(err);
      }
    });
    opts.extend?.(r);
    return r;
  }
}
