/**
 * The tiles' pure rules other code builds on: the density rules of the generalised tiles (which
 * zooms keep which features, the grid columns and the minzoom function the store's views create).
 * No I/O.
 */
export {
  DETAIL_MINZOOM,
  GRID_ZOOMS,
  MINZOOM_COLUMN,
  MINZOOM_FUNCTION,
  MINZOOM_INDEX_ZOOMS,
  gridColumn,
  gridGeomSql,
  minzoomFunctionSql,
  type GridZoom,
} from './density';
