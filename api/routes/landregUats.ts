/** The UAT catalogue routes (spec 4.4; docs/sync.md "UAT catalogue"). */
import type { Router } from 'express';
import { z } from 'zod';
import type { LandregService } from '../../domain/landreg/service';
import { withinDeadline } from '../http/deadline';
import { legacyWriteGate } from '../http/gates';
import { defineRoute } from '../http/route';

const TAGS = ['landreg'];

const UatItem = z.object({
  siruta: z.number().int(),
  name: z.string(),
  county: z.string().nullable(),
  workspacePk: z.number().int().nullable(),
  areaValue: z.number().nullable(),
  hasGeometry: z.boolean(),
  lastUpdatedDtm: z.string().nullable(),
  featureCount: z.number().int().optional(),
});

export function registerLandregUatRoutes(router: Router, landreg: LandregService): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/uats',
      summary: 'Lista UAT-urilor din baza locală (fără autentificare la portal)',
      tags: TAGS,
      auth: 'session',
      query: z.object({ features: z.enum(['true', 'false']).optional() }),
      response: { description: 'UAT-urile; cu features=true fiecare are numărul local de obiecte', schema: z.object({ items: z.array(UatItem), total: z.number().int() }) },
    },
    async ({ query }) => {
      const items = await landreg.listUats();
      if (query.features === 'true') {
        const counts = await landreg.featureCounts();
        for (const u of items) (u as z.infer<typeof UatItem>).featureCount = counts.get(u.siruta) ?? 0;
      }
      return { items, total: items.length };
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/uats',
      summary: 'Verifică lista UAT-urilor cu portalul (numărul pe județ) și o actualizează doar la diferențe',
      tags: TAGS,
      auth: 'session',
      gate: legacyWriteGate,
      response: {
        description: 'Rezultatul comparării și al actualizării',
        schema: z.object({ counties: z.number().int(), fetchedCounties: z.number().int(), upserted: z.number().int(), totalUats: z.number().int(), unchanged: z.boolean() }),
      },
      failures: { 410: 'Utilizator pe calea API-ului central (gone_central_api)', 429: 'Peste limita cererilor către portal (Retry-After)', 503: 'Portalul este în mentenanță' },
    },
    ({ req, res }) => withinDeadline({ req, res }, () => landreg.refreshUatCatalogue()),
  );

  defineRoute(
    router,
    {
      method: 'patch',
      path: '/api/landreg/uats',
      summary: 'Reîmprospătează județul, workspacePk și geometria UAT-urilor (geometria sărită peste 50%)',
      tags: TAGS,
      auth: 'session',
      gate: legacyWriteGate,
      response: { description: 'Ce s-a actualizat, cu mostre de depanare' },
      failures: { 410: 'Utilizator pe calea API-ului central (gone_central_api)', 429: 'Peste limita cererilor către portal (Retry-After)', 503: 'Portalul este în mentenanță' },
    },
    ({ req, res }) => withinDeadline({ req, res }, () => landreg.patchUatCatalogue()),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/counties',
      summary: 'Județele din baza locală',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Numele județelor', schema: z.object({ counties: z.array(z.string()) }) },
    },
    async () => ({ counties: await landreg.listCounties() }),
  );
}
