/**
 * Fixed workflow ids of the jobs that run one at a time for the whole service (temporal/ids.ts
 * `<kind>:<scope>`). Pure, so workflows (which start some of them as children) import it too.
 */

/** The rebuild of spec 3.6 (webhook, then wait for the archive to change): API, monitor and syncs. */
export const TILE_REBUILD_WORKFLOW_ID = 'tile-archive-rebuild:overview';

/** The overview build the webhook starts (workflows/overviewArchiveBuild.ts). */
export const OVERVIEW_BUILD_WORKFLOW_ID = 'tile-archive-build:overview';
