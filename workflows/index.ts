/**
 * Every workflow the workers register. The worker bundles this file (bundleWorkflowCode), so
 * a new workflow is exported here and nowhere else needs to know about it.
 */
export { sessionHousekeeping } from './sessionHousekeeping';
