/**
 * The DWG tools' pure rules, importable from anywhere (the DWG page's browser code too): release
 * names, the entity-types header, the DXF's file name. No I/O.
 */
export { dwgRelease, dxfFileName, formatEntityTypes, parseEntityTypes } from './names';
