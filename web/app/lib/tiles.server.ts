/** Server side of the tile infrastructure monitor: the same functions as the API routes, no HTTP hop. */
export { tileInfraStatus, startTileRebuild } from '../../../api/routes/geoportalTiles';
export type { TileInfraStatus } from '../../../api/routes/geoportalTiles';
