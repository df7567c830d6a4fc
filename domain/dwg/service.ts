/**
 * The DWG conversion's application service: the sidecar's health the DWG page shows, the same
 * `GET /api/dwg/status` reads (docs/architecture.md "Application services").
 */
export { dwgConverterHealth } from './converter';
