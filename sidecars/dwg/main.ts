/** CLI: `npx tsx sidecars/dwg/main.ts` starts the DWG → DXF conversion sidecar (started by the local stack). */
import { assertProductionSecrets } from '../../domain/config';
import { childLogger } from '../../domain/log';
import { startDwgSidecar } from './server';

assertProductionSecrets();
const log = childLogger('dwg-sidecar');
const sidecar = await startDwgSidecar();
log.info({ url: sidecar.url }, `DWG converter listening on ${sidecar.url}`);

const stop = async () => {
  await sidecar.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
