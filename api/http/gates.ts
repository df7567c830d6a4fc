/**
 * Gates that run before request validation (RouteSpec.gate).
 *
 * Spec 5.9 and CONTRACT.md section 1: the legacy write routes answer 410 `gone_central_api` to
 * users on the central API path, BEFORE any body validation, so a central-API client learns that
 * the route is gone rather than how to fill it in. Every legacy write route (landreg sync,
 * sync-county, sync-background, sync-all-counties, auto-refresh, refresh-all, sync-rules writes,
 * uats POST/PATCH, export-layer-gpkg, export-bundle, geoportal enrich) uses this one helper:
 *
 *   defineRoute(router, { ..., auth: 'session', gate: legacyWriteGate, body: ... }, handler)
 */
import type { Request } from 'express';
import { viewerOf } from '../../domain/auth/rules';
import { errors } from '../../domain/errors';

export function legacyWriteGate(req: Request): void {
  if (req.auth?.useCentralApi) throw errors.goneCentralApi();
}

/**
 * CONTRACT.md section 6: a CF extract carries the land-book number and the owners, so ordering or
 * downloading one needs the personal-data right (not the basic panel, scope `full`). Before body
 * validation, like the legacy gate; without a session the auth check answers 401 as usual.
 */
export function cfExtractGate(req: Request): void {
  if (req.auth && !viewerOf(req.auth).personalData) {
    throw errors.forbidden('Extrasele CF poartă numărul cărții funciare și proprietarii; contul dumneavoastră nu are acces la date personale.');
  }
}
