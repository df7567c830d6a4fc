/**
 * The OGC area's application service: what the Acces QGIS page reads and the ready QGIS project
 * route (GET /api/qgis/project) writes, one function each (docs/architecture.md "Application
 * services"). The OGC API Features routes themselves read features.ts through the readers.
 */
export { projectExtent, uatsWithParcels } from './features';
export { QGIS_AUTHCFG, qgisProjectXml } from './qgisProject';
