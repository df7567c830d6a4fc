/**
 * `GET /metrics` (CONTRACT.md section 6): the web process's metrics in Prometheus' text format,
 * to an admin session, `Authorization: Bearer <METRICS_TOKEN>` or a loopback caller (the `metrics`
 * access of defineRoute). Outside /api: the API's rate limits and JSON body parser do not apply,
 * and a Prometheus server scrapes it every 15 s or so.
 */
import { Router } from 'express';
import { defineRoute } from '../http/route';
import { scrape } from '../../domain/metrics';

export function metricsRouter(): Router {
  const router = Router();
  defineRoute(
    router,
    {
      method: 'get',
      path: '/metrics',
      summary: 'Metrics of the web process, Prometheus text exposition 0.0.4 (docs/operations.md "Watching it")',
      tags: ['system'],
      auth: 'metrics',
      response: { description: 'The metrics in Prometheus text format', contentType: 'text/plain' },
      failures: { 403: 'A session that is not an administrator’s' },
    },
    async ({ res }) => {
      const { contentType, text } = await scrape();
      res.status(200).type(contentType).send(text);
    },
  );
  return router;
}
