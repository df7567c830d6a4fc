/**
 * The DWG conversion's door (docs/architecture.md "Areas"): conversions and the health of the
 * conversion sidecar (sidecars/dwg/, its own process) at the address `outside.dwgSidecarUrl`
 * (default config.dwg.url; a test aims at a stopped or short-deadline sidecar). Built once per
 * process by `domain/services.ts` `createServices` and handed to the DWG routes and page. Its pure
 * rules are in `rules.ts`.
 */
import { config } from '../config';
import type { AreaDeps } from '../areaDeps';
import { convertDwgToDxf, dwgConverterHealth } from './converter';

/** The format readers the sidecar shares: stateless, they open only the file they are given. */
export { countDxfEntities, dwgVersionOfFile } from './format';

export function createDwgService({ outside }: Pick<AreaDeps, 'outside'>) {
  const sidecarUrl = (outside.dwgSidecarUrl ?? config.dwg.url).replace(/\/+$/, '');
  return {
    /** The DWG at `input` converted to the DXF at `output`; aborting `cancel` stops the conversion. */
    convert: (input: string, output: string, cancel?: AbortSignal) => convertDwgToDxf(sidecarUrl, input, output, cancel),
    /** Whether the sidecar answers, and its engine. */
    health: () => dwgConverterHealth(sidecarUrl),
  };
}

export type DwgService = ReturnType<typeof createDwgService>;
