/**
 * The OGC area's pure rules, importable from anywhere (other areas, the store's views, pages): the
 * collections and what each viewer sees of them, the OGC API Features parameters (CRS, bbox,
 * datetime, cursor) and the authentication entry the ready QGIS project names. No I/O.
 */
export {
  ENRICHED_LAYER_IDS,
  OGC_COLLECTIONS,
  QUERYABLES,
  STORED_PROPERTIES_COLUMN,
  enrichmentMembersSql,
  propertiesFor,
  scopedCollectionById,
  type OgcCollection,
  type UatCollection,
} from './collections';
export {
  CRS84,
  STEREO70,
  STORAGE_CRS,
  SUPPORTED_CRS,
  encodeCursor,
  parseBbox,
  parseCrs,
  parseCursor,
  parseDatetime,
} from './params';

/** The id of the authentication configuration every layer of the ready project names (QGIS ids are 7 characters). */
export const QGIS_AUTHCFG = 'cgpqgis';
