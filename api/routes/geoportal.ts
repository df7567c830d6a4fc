/**
 * Geoportal routes of spec 4.1 with the shapes of CONTRACT.md section 4: search, feature,
 * export, uat-bounds, boundary-check, cf-status. The domain lives in domain/geoportal/.
 * (setup/optimize routes and /tiles belong to the tile server; enrich to the enrichment area.)
 */
import { LayerId, Siruta } from '../http/schemas';
import { contentDisposition } from '../http/contentDisposition';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute } from '../http/route';
import { clientGone } from '../http/download';
import { requestCaller } from '../http/deadline';
import { heavyWork, holdSlot } from '../http/rateLimit';
import type { GeoportalService } from '../../domain/geoportal/service';
import { DEFAULT_FEATURE_LAYER, EXPORT_MAX_FEATURES, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, viewerOf } from '../../domain/geoportal/rules';


const Bbox = z.tuple([z.number(), z.number(), z.number(), z.number()]).openapi({ description: '[minLon, minLat, maxLon, maxLat], WGS84' });

const SearchQuery = z.object({
  q: z.string().trim().min(1, 'Textul de căutare lipsește.').max(200),
  limit: z.coerce.number().int().min(1).max(SEARCH_LIMIT_MAX).default(SEARCH_LIMIT_DEFAULT),
  siruta: Siruta.optional().openapi({ description: 'Only parcels and owners of this UAT (no UAT hits then)' }),
});
const SearchBody = z.object({
  results: z.array(
    z.object({
      kind: z.enum(['uat', 'parcel', 'owner']),
      label: z.string(),
      siruta: z.number().int(),
      uatName: z.string().nullable(),
      county: z.string().nullable(),
      featureId: z.string().uuid().optional(),
      objectId: z.number().int().optional().openapi({ description: 'Parcel and owner hits: the OBJECTID, with siruta the parcel key of the tiles' }),
      cadastralRef: z.string().optional(),
      ownerName: z.string().optional(),
      bbox: Bbox.optional(),
      bboxOf: z.enum(['uat', 'parcels', 'county']).optional().openapi({ description: 'UAT hits: the boundary, else the extent of its parcels, else of its county' }),
      synced: z.boolean().optional().openapi({ description: 'UAT hits: whether the store holds any parcel of the UAT' }),
    }),
  ),
});

const FeatureQuery = z
  .object({
    id: z.string().uuid('id trebuie să fie un UUID.').optional(),
    siruta: Siruta.optional(),
    objectId: z.coerce.number().int().optional(),
    layerId: LayerId.default(DEFAULT_FEATURE_LAYER),
  })
  .superRefine((q, ctx) => {
    if (q.id !== undefined) return;
    if (q.siruta === undefined) ctx.addIssue({ code: 'custom', path: ['siruta'], message: 'Dați fie id, fie siruta și objectId.' });
    if (q.objectId === undefined) ctx.addIssue({ code: 'custom', path: ['objectId'], message: 'Dați fie id, fie siruta și objectId.' });
  });
const FeatureBody = z.object({
  feature: z.union([
    z.object({
      id: z.string().uuid(),
      layerId: z.string(),
      siruta: z.number().int(),
      uatName: z.string().nullable(),
      objectId: z.number().int(),
      cadastralRef: z.string().nullable(),
      areaValue: z.number().nullable(),
      isActive: z.boolean(),
      geometrySource: z.string().nullable(),
      attributes: z.record(z.string(), z.unknown()).nullable(),
      enrichment: z.record(z.string(), z.unknown()).nullable(),
      enrichedAt: z.string().nullable(),
      geometry: z.any().openapi({ description: 'GeoJSON geometry, WGS84' }),
    }),
    z.object({ cadastralRef: z.string().nullable(), areaValue: z.number().nullable(), restricted: z.literal(true) }),
  ]),
});

const ExportRequest = z.object({
  format: z.enum(['geojson', 'dxf', 'gpkg']),
  featureIds: z
    .array(z.string().uuid('Fiecare id trebuie să fie un UUID.'))
    .min(1, 'Selectați cel puțin un obiect.')
    .max(EXPORT_MAX_FEATURES, `Cel mult ${EXPORT_MAX_FEATURES} obiecte într-un export.`),
});

const SirutaQuery = z.object({ siruta: Siruta });
const BoundaryItem = z.object({ id: z.string().uuid(), siruta: z.number().int(), uatName: z.string().nullable(), cadastralRef: z.string().nullable() });

const CfStatusQuery = z.object({
  nrCad: z.string().trim().min(1, 'Numărul cadastral lipsește.').max(64),
  siruta: Siruta.optional(),
});
const CfStatusBody = z.object({
  exists: z.boolean(),
  status: z.string().optional(),
  state: z.enum(['processing', 'valid', 'expired', 'failed']).optional(),
  expiresAt: z.string().optional(),
  downloadUrl: z.string().optional(),
  extractId: z.string().uuid().optional(),
  version: z.number().int().optional(),
});

/** RFC 6266: ASCII fallback plus the UTF-8 name (ours are ASCII slugs already). */

export function registerGeoportalRoutes(router: Router, geoportal: GeoportalService): void {
  const tags = ['geoportal'];

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/search',
      summary: 'Search UATs by name, parcels by cadastral reference and owners by name (spec 4.1)',
      tags,
      auth: 'session',
      query: SearchQuery,
      response: { description: 'UATs, then parcels, then owners; case- and diacritic-insensitive', schema: SearchBody },
    },
    ({ res, query, auth }) => geoportal.search(query.q, query.limit, viewerOf(auth), { siruta: query.siruta }, clientGone(res)),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/feature',
      summary: 'One feature with its enrichment and WGS84 geometry (spec 4.1)',
      tags,
      auth: 'session',
      query: FeatureQuery,
      response: { description: 'The feature; basic panel users get only cadastralRef, areaValue, restricted', schema: FeatureBody },
      failures: { 404: 'No such feature' },
    },
    ({ query, auth }) =>
      geoportal.feature(
        query.id !== undefined ? { id: query.id } : { siruta: query.siruta!, objectId: query.objectId!, layerId: query.layerId },
        viewerOf(auth),
      ),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/geoportal/export',
      summary: 'Export selected features as GeoJSON (WGS84), DXF or GPKG (EPSG:3844) through ogr2ogr (spec 4.1)',
      tags,
      auth: 'session',
      body: ExportRequest,
      response: {
        description: 'File attachment; headers X-Feature-Count and X-Missing-Count',
        contentType: 'application/octet-stream',
        schema: z.string().openapi({ format: 'binary' }),
      },
      failures: {
        404: 'None of the features exists or has geometry',
        429: 'The caller already has an export converting, or the server converts its maximum (rate_limited, Retry-After)',
      },
    },
    async ({ body, auth, req, res }) => {
      // ogr2ogr is killed when the client leaves; the slot goes back with the answer.
      await holdSlot(heavyWork.selectionExport, req, res);
      const file = await geoportal.exportFeatures(body.format, body.featureIds, viewerOf(auth), clientGone(res));
      try {
        const { size } = await fs.promises.stat(file.path);
        res.status(200).set({
          'Content-Type': file.contentType,
          'Content-Length': String(size),
          'Content-Disposition': contentDisposition(file.fileName),
          'Cache-Control': 'no-store',
          'X-Feature-Count': String(file.count),
          'X-Missing-Count': String(file.missing),
        });
        await pipeline(fs.createReadStream(file.path), res);
      } finally {
        await file.cleanup();
      }
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/uat-bounds',
      summary: 'Bounding box of a UAT in WGS84 (spec 4.1)',
      tags,
      auth: 'session',
      query: SirutaQuery,
      response: {
        description: '{siruta, bbox} and the UAT name, county and whether the store holds any of its parcels',
        schema: z.object({
          siruta: z.number().int(),
          bbox: Bbox,
          name: z.string().optional(),
          county: z.string().nullable().optional(),
          synced: z.boolean().optional().openapi({ description: 'false: no parcel of the UAT in the store (never synced)' }),
        }),
      },
      failures: { 404: 'Unknown UAT or no geometry yet' },
    },
    ({ query }) => geoportal.uatBounds(query.siruta),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/boundary-check',
      summary: 'Foreign parcels inside the UAT boundary and own parcels whose centroid lies outside (spec 4.1)',
      tags,
      auth: 'session',
      query: SirutaQuery,
      response: {
        description: '{siruta, foreign, edge}',
        schema: z.object({ siruta: z.number().int(), foreign: z.array(BoundaryItem), edge: z.array(BoundaryItem) }),
      },
      failures: {
        404: 'Unknown UAT or no boundary yet',
        429: 'rate_limited: the caller (or everyone) has too many UAT-wide reads in flight (HEAVY_READ_MAX_PER_USER, HEAVY_READ_MAX_CONCURRENT)',
      },
    },
    ({ req, res, query }) => geoportal.boundaryCheck(query.siruta, requestCaller({ req, res })),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/geoportal/cf-status',
      summary: 'Whether a CF extract exists for a parcel, its state and download URL (spec 4.1)',
      tags,
      auth: 'session',
      query: CfStatusQuery,
      response: { description: 'Extract state', schema: CfStatusBody },
    },
    ({ query }) => geoportal.cfStatus(query.nrCad, query.siruta),
  );
}
