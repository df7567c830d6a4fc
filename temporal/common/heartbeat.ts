/**
 * The heartbeat timeout of an activity run under `keepAlive` or `keptAlive`
 * (activities/heartbeat.ts beats every 5 s). Without one, an activity taken by a worker that then
 * dies (SIGKILL, OOM, a lost host) is retried only after its whole start-to-close timeout, one to
 * fifteen minutes; with it, elsewhere after 20 s. Pure, so workflow code spreads it into its
 * activity proxies.
 */
export const KEPT_ALIVE = { heartbeatTimeout: '20 seconds' } as const;
