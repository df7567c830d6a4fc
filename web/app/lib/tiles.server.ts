/** Server side of the tile infrastructure monitor: the service the API route uses, no HTTP hop. */
export { tileInfraStatus, startTileRebuild } from '../../../temporal/tileMonitor';
export type { TileInfraStatus } from '../../../temporal/tileMonitor';
