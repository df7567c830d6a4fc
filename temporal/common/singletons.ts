/**
 * Fixed workflow ids of the jobs that run one at a time for the whole service (temporal/ids.ts
 * `<kind>:<scope>`). Pure, so workflows (which start some of them as children) import it too.
 */

/** The rebuild of spec 3.6 (webhook, then wait for the archive to change): API, monitor and syncs. */
export const TILE_REBUILD_WORKFLOW_ID = 'tile-archive-rebuild:overview';

/** The overview build the webhook starts (workflows/overviewArchiveBuild.ts). */
export const OVERVIEW_BUILD_WORKFLOW_ID = 'tile-archive-build:overview';

/** The weekend sync session (workflows/scheduling.ts): the nightly kick and the trigger button. */
export const WEEKEND_SYNC_WORKFLOW_ID = 'weekend-sync:global';

/** The sync of every county, one after another; it blocks county syncs while it runs (spec 4.4, 409 all_counties_running). */
export const ALL_COUNTIES_JOB = { kind: 'sync-all-counties', scope: 'ro' } as const;
export const ALL_COUNTIES_JOB_ID = `${ALL_COUNTIES_JOB.kind}:${ALL_COUNTIES_JOB.scope}`;
