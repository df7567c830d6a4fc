/**
 * The registry's pure rules, importable from anywhere (pages' browser code, other areas, workflows):
 * who reads and writes which company's registry, the numbering, the status names, the list's
 * filter bounds. No I/O.
 */
export { canRead, canWrite, readableCompanies, registryViewer, writableCompanies, type RegistryViewer, type ViewerSession } from './access';
export { REGISTRY_LIST_BOUNDS } from './listBounds';
export { COMPANIES, DIRECTIONS, formatRegistryNumber, parseRegistryNumber, type Direction, type RegistryCompany } from './numbers';
export { STATUS_CLASS, STATUS_CODES, STATUS_LABEL, type StatusClass, type StatusCode } from './statusNames';
