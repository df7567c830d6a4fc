/**
 * OGC API Features, Part 1 (Core, GeoJSON, OpenAPI 3.0) and Part 2 (CRS by reference) over the
 * store (issue 29, CONTRACT.md section 6; docs/qgis.md):
 *   GET /ogc                                       landing page (service-desc → /ogc/api)
 *   GET /ogc/conformance                           conformance classes
 *   GET /ogc/api                                   OpenAPI 3.0 document of these routes
 *   GET /ogc/collections[/:collectionId]           parcels, buildings, intravilan, uat-boundaries
 *   GET /ogc/collections/:collectionId/items       bbox, bbox-crs, crs, limit, cursor, datetime, siruta, cadastral_ref
 *   GET /ogc/collections/:collectionId/items/:featureId
 *   GET /ogc/collections/:collectionId/queryables  (Part 3) and /schema (describedby, Part 5)
 * A session cookie or a personal access token (api/auth/personalToken.ts) signs the caller in;
 * what a feature carries is the viewer rule's answer (domain/ogc/collections.ts propertiesFor).
 */
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { defineRoute } from '../http/route';
import { registry } from '../http/openapi';
import { clientGone } from '../http/download';
import { callerKey, heavyWork } from '../http/rateLimit';
import { config } from '../../domain/config';
import { errors } from '../../domain/errors';
import { viewerOf } from '../../domain/auth/rules';
import type { CollectionExtent, OgcService } from '../../domain/ogc/service';
import {
  CRS84,
  OGC_COLLECTIONS,
  QUERYABLES,
  STORAGE_CRS,
  SUPPORTED_CRS,
  encodeCursor,
  parseBbox,
  parseCrs,
  parseCursor,
  parseDatetime,
  propertiesFor,
  scopedCollectionById,
  type OgcCollection,
  type UatCollection,
} from '../../domain/ogc/rules';
import { Siruta } from '../http/schemas';

export const OGC_LIMIT_DEFAULT = 100;
export const OGC_LIMIT_MAX = 10_000;

const GEOJSON = 'application/geo+json';
const OPENAPI_30 = 'application/vnd.oai.openapi+json;version=3.0';
const SCHEMA_JSON = 'application/schema+json';
const REL_QUERYABLES = 'http://www.opengis.net/def/rel/ogc/1.0/queryables';

export const CONFORMANCE = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
  'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters',
];

/** Pages of at least this many features get their next page read ahead (domain/ogc/prefetch.ts). */
const READ_AHEAD_MIN_LIMIT = 500;

/** Absolute links: GDAL and QGIS resolve a relative href against the landing page, not the host. */
const base = () => `${config.app.publicUrl.replace(/\/+$/, '')}/ogc`;
const link = (href: string, rel: string, type: string, title: string) => ({ href, rel, type, title });

const CollectionParams = z.object({ collectionId: z.string().min(1).max(100).openapi({ example: 'parcels' }) });
const ItemParams = CollectionParams.extend({ featureId: z.string().min(1).max(100).openapi({ description: 'Feature uuid' }) });

const CrsParam = z
  .string()
  .max(200)
  .optional()
  .openapi({ description: `One of ${SUPPORTED_CRS.map((c) => c.uri).join(', ')} (default CRS84)` });
const Format = z.enum(['json', 'geojson']).optional().openapi({ description: 'Only GeoJSON is served; accepted for clients that send it' });

const ItemsQuery = z
  .object({
    bbox: z.string().max(400).optional().openapi({ description: 'minx,miny,maxx,maxy in the axis order of bbox-crs (CRS84: lon,lat)' }),
    'bbox-crs': CrsParam,
    crs: CrsParam,
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ default: OGC_LIMIT_DEFAULT, maximum: OGC_LIMIT_MAX, description: `Features per page (default ${OGC_LIMIT_DEFAULT}; above ${OGC_LIMIT_MAX} answers ${OGC_LIMIT_MAX})` }),
    cursor: z.string().max(64).optional().openapi({ description: 'Position in the walk; take it from the next/prev links' }),
    datetime: z.string().max(100).optional().openapi({ description: 'Sync stamp (updated_at): an instant, a date or an interval a/b with .. for an open end' }),
    siruta: Siruta.optional(),
    cadastral_ref: z.string().min(1).max(100).optional().openapi({ description: 'Exact cadastral number' }),
    f: Format,
  })
  .strict();
const ItemQuery = z.object({ crs: CrsParam, f: Format }).strict();

const Link = z.object({ href: z.string(), rel: z.string(), type: z.string(), title: z.string() });
const Landing = z.object({ title: z.string(), description: z.string(), links: z.array(Link) });
const Conformance = z.object({ conformsTo: z.array(z.string()) });
const Collection = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  itemType: z.literal('feature'),
  crs: z.array(z.string()),
  storageCrs: z.string(),
  extent: z.object({}).passthrough().optional(),
  links: z.array(Link),
});
const Collections = z.object({ collections: z.array(Collection), links: z.array(Link) });
const JsonSchema = z.object({}).passthrough();
const FeatureCollection = z.object({
  type: z.literal('FeatureCollection'),
  numberReturned: z.number().int(),
  timeStamp: z.string(),
  links: z.array(Link),
  features: z.array(z.object({}).passthrough()),
});

function collectionOr404(id: string): UatCollection {
  const c = scopedCollectionById(id);
  if (!c) throw errors.notFound('Colecția nu există.');
  return c;
}

function collectionDoc(c: OgcCollection, extent: CollectionExtent | undefined) {
  const url = `${base()}/collections/${c.id}`;
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    itemType: 'feature' as const,
    crs: SUPPORTED_CRS.map((s) => s.uri),
    storageCrs: STORAGE_CRS.uri,
    extent: {
      ...(extent?.bbox ? { spatial: { bbox: [extent.bbox], crs: CRS84.uri } } : {}),
      temporal: { interval: [[extent?.firstSync ?? null, null]], trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian' },
    },
    links: [
      link(url, 'self', 'application/json', c.title),
      link(`${url}/items`, 'items', GEOJSON, `${c.title} (GeoJSON)`),
      link(`${url}/queryables`, REL_QUERYABLES, SCHEMA_JSON, 'Proprietăți după care se poate filtra'),
      link(`${url}/schema`, 'describedby', SCHEMA_JSON, 'Schema obiectelor'),
      // GDAL before 3.8 looks for this spelling only; without the schema it guesses field types
      // from the first page (an area of 400 there makes the field an integer for every page).
      link(`${url}/schema`, 'describedBy', SCHEMA_JSON, 'Schema obiectelor'),
    ],
  };
}

/** application/schema+json to those who ask for it (Part 3), application/json to the rest (GDAL). */
function sendSchema(req: Request, res: Response, doc: unknown): void {
  const type = req.accepts([SCHEMA_JSON, 'application/json']) === SCHEMA_JSON ? SCHEMA_JSON : 'application/json';
  res.status(200).type(type).send(JSON.stringify(doc));
}

/** One property's JSON Schema, as both the queryables and the feature schema describe it. */
const propertySchema = (p: { type: string; format?: string; title: string }) => ({
  type: p.type,
  ...(p.format ? { format: p.format } : {}),
  // FOLOSINTE: [{categorie, suprafata, intravilan}]; GDAL keeps such an array as JSON text.
  ...(p.type === 'array' ? { items: { type: 'object' } } : {}),
  title: p.title,
});

/** A collection's JSON Schema document (queryables or feature schema) at `/collections/{id}/{doc}`. */
function sendCollectionSchema(req: Request, res: Response, c: OgcCollection, doc: 'queryables' | 'schema', body: Record<string, unknown>): void {
  sendSchema(req, res, {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${base()}/collections/${c.id}/${doc}`,
    type: 'object',
    title: c.title,
    ...body,
  });
}

let openApiCache: unknown;
function ogcOpenApi(): unknown {
  openApiCache ??= new OpenApiGeneratorV3(
    registry.definitions.filter((d) => d.type !== 'route' || d.route.path.startsWith('/ogc')),
  ).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Geoportal cadastral — OGC API Features',
      version: '1.0.0',
      description: 'Parcele, clădiri, intravilan și limite UAT din baza de date locală (OGC API Features, părțile 1 și 2).',
    },
    servers: [{ url: config.app.publicUrl.replace(/\/+$/, '') }],
  });
  return openApiCache;
}

export function registerOgcRoutes(router: Router, ogc: OgcService): void {
  const common = { tags: ['ogc'], auth: 'session' as const };

  defineRoute(
    router,
    { ...common, method: 'get', path: '/ogc', summary: 'OGC API Features landing page', response: { description: 'Landing page', schema: Landing } },
    () => ({
      title: 'Geoportal cadastral — OGC API Features',
      description: 'Parcelele, clădirile, intravilanul și limitele UAT sincronizate, pentru QGIS și GDAL.',
      links: [
        link(base(), 'self', 'application/json', 'Această pagină'),
        link(`${base()}/api`, 'service-desc', OPENAPI_30, 'Definiția API (OpenAPI 3.0)'),
        link(`${base()}/conformance`, 'conformance', 'application/json', 'Clase de conformitate'),
        link(`${base()}/collections`, 'data', 'application/json', 'Colecții'),
      ],
    }),
  );

  defineRoute(
    router,
    { ...common, method: 'get', path: '/ogc/conformance', summary: 'Conformance classes', response: { description: 'conformsTo', schema: Conformance } },
    () => ({ conformsTo: CONFORMANCE }),
  );

  defineRoute(
    router,
    {
      ...common,
      method: 'get',
      path: '/ogc/api',
      summary: 'OpenAPI 3.0 document of the OGC routes (rel service-desc)',
      response: { description: 'OpenAPI 3.0', schema: JsonSchema, contentType: OPENAPI_30 },
    },
    ({ res }) => {
      res.status(200).type(OPENAPI_30).send(JSON.stringify(ogcOpenApi()));
    },
  );

  defineRoute(
    router,
    { ...common, method: 'get', path: '/ogc/collections', summary: 'The four collections', response: { description: 'Collections', schema: Collections } },
    async () => {
      const extents = await ogc.collectionExtents(OGC_COLLECTIONS.map((c) => c.layerId));
      return {
        collections: OGC_COLLECTIONS.map((c) => collectionDoc(c, extents.get(c.layerId))),
        links: [link(`${base()}/collections`, 'self', 'application/json', 'Colecții')],
      };
    },
  );

  defineRoute(
    router,
    {
      ...common,
      method: 'get',
      path: '/ogc/collections/:collectionId',
      summary: 'One collection: extent, CRS list, links',
      params: CollectionParams,
      response: { description: 'Collection', schema: Collection },
      failures: { 404: 'Unknown collection' },
    },
    async ({ params }) => {
      const c = collectionOr404(params.collectionId);
      const extents = await ogc.collectionExtents(OGC_COLLECTIONS.map((x) => x.layerId));
      return collectionDoc(c, extents.get(c.layerId));
    },
  );

  /** A collection's two JSON Schema documents, both for the properties the caller receives. */
  const schemaRoute = (doc: 'queryables' | 'schema', summary: string, body: (props: ReturnType<typeof propertiesFor>) => Record<string, unknown>) =>
    defineRoute(
      router,
      {
        ...common,
        method: 'get',
        path: `/ogc/collections/:collectionId/${doc}`,
        summary,
        params: CollectionParams,
        response: { description: 'JSON Schema', schema: JsonSchema, contentType: SCHEMA_JSON },
        failures: { 404: 'Unknown collection' },
      },
      ({ req, res, params, auth }) => {
        const c = collectionOr404(params.collectionId);
        sendCollectionSchema(req, res, c, doc, body(propertiesFor(c, viewerOf(auth))));
      },
    );

  schemaRoute('queryables', 'Properties the items can be filtered on (OGC API Features Part 3)', (props) => ({
    properties: {
      geometry: { format: 'geometry-any', title: 'Geometrie (filtru bbox)' },
      ...Object.fromEntries(
        QUERYABLES.map((name) => {
          const p = props.find((x) => x.name === name)!;
          return [name, propertySchema(p)];
        }),
      ),
    },
    additionalProperties: false,
  }));

  schemaRoute('schema', 'JSON Schema of the features the caller receives (rel describedby)', (props) => ({
    properties: {
      type: { type: 'string', enum: ['Feature'] },
      id: { type: 'string', format: 'uuid' },
      geometry: { format: 'geometry-any' },
      properties: {
        type: 'object',
        // `id` is the Feature's own id member too: GDAL makes a field of it already, and would
        // add the property as a second `id` column.
        properties: Object.fromEntries(props.filter((p) => p.name !== 'id').map((p) => [p.name, propertySchema(p)])),
      },
    },
  }));

  defineRoute(
    router,
    {
      ...common,
      method: 'get',
      path: '/ogc/collections/:collectionId/items',
      summary: 'Features of a collection, a page at a time (next/prev links walk the whole result)',
      params: CollectionParams,
      query: ItemsQuery,
      response: { description: 'GeoJSON FeatureCollection; Content-Crs names its CRS', schema: FeatureCollection, contentType: GEOJSON },
      failures: { 404: 'Unknown collection', 429: 'Too many pages at once' },
    },
    async ({ req, res, params, query, auth }) => {
      const collection = collectionOr404(params.collectionId);
      if (collection.uat !== undefined && query.siruta !== undefined && query.siruta !== collection.uat) {
        throw errors.badRequest(`Colecția ${collection.id} are doar obiectele UAT-ului ${collection.uat}.`);
      }
      const crs = parseCrs(query.crs, 'crs');
      const bboxCrs = parseCrs(query['bbox-crs'], 'bbox-crs');
      const limit = Math.min(query.limit ?? OGC_LIMIT_DEFAULT, OGC_LIMIT_MAX);
      const q = {
        collection,
        viewer: viewerOf(auth),
        crs,
        limit,
        bbox: query.bbox !== undefined ? parseBbox(query.bbox, bboxCrs) : undefined,
        datetime: query.datetime !== undefined ? parseDatetime(query.datetime) : undefined,
        cursor: query.cursor !== undefined ? parseCursor(query.cursor) : undefined,
        siruta: collection.uat ?? query.siruta,
        cadastralRef: query.cadastral_ref,
      };
      const userId = auth!.user.id;
      // The next link adds `limit` when the caller left it out: the key holds the effective one.
      const sameQuery = Object.entries(req.query)
        .filter(([k]) => k !== 'cursor' && k !== 'limit')
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}=${String(v)}`)
        .concat(`limit=${limit}`)
        .join('&');
      const aheadKey = (cursor: string) => [userId, collection.id, sameQuery, cursor].join('\n');
      // A page QGIS gave up on (the user panned) stops waiting for its turn, and is not read.
      const gone = clientGone(res);
      const release = await heavyWork.ogcItems.acquire(callerKey(req), gone);
      try {
        const ahead = query.cursor ? ogc.readAhead.take(aheadKey(query.cursor)) : undefined;
        const page = (ahead && (await ahead.catch(() => undefined))) || (await ogc.queryItems(q, gone));
        // The links repeat the caller's own parameters (as sent) with the position replaced.
        const url = `${base()}/collections/${collection.id}/items`;
        const withCursor = (cursor?: string) => {
          const sp = new URLSearchParams();
          for (const [k, v] of Object.entries(req.query)) if (k !== 'cursor' && typeof v === 'string') sp.set(k, v);
          if (!sp.has('limit')) sp.set('limit', String(limit));
          if (cursor) sp.set('cursor', cursor);
          return `${url}?${sp.toString()}`;
        };
        const links = [link(withCursor(query.cursor), 'self', GEOJSON, 'Această pagină')];
        if (page.hasNext && page.last) links.push(link(withCursor(encodeCursor({ direction: 'after', ...page.last })), 'next', GEOJSON, 'Pagina următoare'));
        if (page.hasPrev) {
          const prev = page.first ? encodeCursor({ direction: 'before', ...page.first }) : undefined;
          links.push(link(withCursor(prev), 'prev', GEOJSON, 'Pagina anterioară'));
        }
        links.push(link(`${base()}/collections/${collection.id}`, 'collection', 'application/json', collection.title));
        res.status(200).set({
          'Content-Type': `${GEOJSON}; charset=utf-8`,
          'Content-Crs': `<${crs.uri}>`,
          'Cache-Control': 'private, no-cache',
        });
        res.write(
          `{"type":"FeatureCollection","numberReturned":${page.returned},"timeStamp":"${new Date().toISOString()}","links":${JSON.stringify(links)},"features":[`,
        );
        res.write(page.features);
        res.end(']}');
        if (page.hasNext && page.last && limit >= READ_AHEAD_MIN_LIMIT && !gone.aborted) {
          const next = { direction: 'after' as const, ...page.last };
          ogc.readAhead.start(aheadKey(encodeCursor(next)), userId, () => heavyWork.ogcItems.tryAcquire(callerKey(req)), () => ogc.queryItems({ ...q, cursor: next }));
        }
      } finally {
        release();
      }
    },
  );

  defineRoute(
    router,
    {
      ...common,
      method: 'get',
      path: '/ogc/collections/:collectionId/items/:featureId',
      summary: 'One feature by its uuid',
      params: ItemParams,
      query: ItemQuery,
      response: { description: 'GeoJSON Feature', schema: JsonSchema, contentType: GEOJSON },
      failures: { 404: 'Unknown collection or feature' },
    },
    async ({ res, params, query, auth }) => {
      const collection = collectionOr404(params.collectionId);
      const crs = parseCrs(query.crs, 'crs');
      const feature = await ogc.queryItem({ collection, viewer: viewerOf(auth), crs, id: params.featureId, siruta: collection.uat });
      const self = `${base()}/collections/${collection.id}/items/${params.featureId}`;
      const links = [
        link(self, 'self', GEOJSON, 'Acest obiect'),
        link(`${base()}/collections/${collection.id}`, 'collection', 'application/json', collection.title),
      ];
      res.status(200).set({ 'Content-Type': `${GEOJSON}; charset=utf-8`, 'Content-Crs': `<${crs.uri}>`, 'Cache-Control': 'private, no-cache' });
      // The feature text ends with its closing brace: the links go in just before it.
      res.end(`${feature.slice(0, -1)},"links":${JSON.stringify(links)}}`);
    },
  );
}
