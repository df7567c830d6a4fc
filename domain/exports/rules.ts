/**
 * The exports' pure rules, importable from anywhere (routes, activities, other areas, benches):
 * the layers of each bundle and the SQL each one reads, the freshness rules of spec 8, the file
 * names. No I/O.
 */
import { slug } from '../geoportal/rules';

export { BUNDLE_LAYERS, KNOWN_LAYERS, geometryKindFromDimension, layerSelectSql, ogrGeometryType, type ExportMode } from './layers';
export { describeDecision, type FreshnessDecision } from './freshness';
export type { PipelineStep } from './reports';

/** `ghelinta-64318`: the UAT's part of every file name of its exports. */
export function uatStem(siruta: number, name: string | null): string {
  return name ? `${slug(name)}-${siruta}` : `uat-${siruta}`;
}
