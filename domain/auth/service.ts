/**
 * Sign-in's application service: what the QGIS access page reads, the same the token routes call
 * (docs/architecture.md "Application services").
 */
export { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, listTokens } from './personalTokens';
