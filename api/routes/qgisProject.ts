/**
 * The ready QGIS project (issue 42; docs/qgis.md, "A ready project"):
 *   GET /api/qgis/project[?siruta=]  → a .qgz (zip of one .qgs) whose layers are /ogc's collections
 *                                     in EPSG:3844, limited to the UAT when one is given
 * Offered by the UAT card of the map, the sync page's UAT and /instrumente/qgis. Session only, as
 * the rest of /api: the project names the QGIS authentication configuration the user fills with a
 * personal token, never the token itself. Its styles follow the caller's viewer class.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { config } from '../../domain/config';
import { errors } from '../../domain/errors';
import { viewerOf } from '../../domain/auth/rules';
import { uatStem } from '../../domain/exports/rules';
import type { ExportsService } from '../../domain/exports/service';
import type { OgcService } from '../../domain/ogc/service';
import { defineRoute } from '../http/route';
import { contentDisposition } from '../http/contentDisposition';
import { Siruta } from '../http/schemas';

const QGZ = 'application/vnd.qgis.qgz';

const ProjectQuery = z.object({ siruta: Siruta.optional().openapi({ description: 'The UAT the layers are limited to; without it, every UAT of the store' }) }).strict();

export function registerQgisProjectRoutes(router: Router, ogc: OgcService, exports: Pick<ExportsService, 'writeZip'>): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/qgis/project',
      summary: 'A ready QGIS project (.qgz) with the parcels, buildings, intravilan and UAT boundaries of /ogc, one UAT or all',
      tags: ['ogc'],
      auth: 'session',
      query: ProjectQuery,
      response: { description: 'QGIS project archive (.qgz)', contentType: QGZ, schema: z.string().openapi({ format: 'binary' }) },
      failures: { 404: 'Unknown UAT' },
    },
    async ({ res, query, auth }) => {
      const siruta = query.siruta ?? null;
      const found = await ogc.projectExtent(siruta);
      if (!found) throw errors.notFound('UAT-ul nu există în baza locală.');
      const uat = siruta !== null ? { siruta, name: found.name ?? `UAT ${siruta}` } : null;
      const xml = ogc.projectXml({ publicUrl: config.app.publicUrl, viewer: viewerOf(auth), uat, extent: found.extent });
      const stem = uat ? `${uatStem(uat.siruta, found.name)}_proiect-qgis` : 'geoportal_proiect-qgis';
      res.status(200).set({ 'Content-Type': QGZ, 'Content-Disposition': contentDisposition(`${stem}.qgz`), 'Cache-Control': 'private, no-cache' });
      await exports.writeZip([{ name: `${stem}.qgs`, content: xml }], res);
    },
  );
}
