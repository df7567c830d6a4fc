/**
 * The outside area's application service (docs/architecture.md "Application services"): the one
 * door of portal-bound work, which the API (api/http/deadline.ts) and the pages
 * (web/app/lib/portal.server.ts) both pass.
 */
export { callerKeyOf, throughPortalDoor, type DoorOptions } from './door';
