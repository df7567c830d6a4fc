-- Who started a portal job (a sync or an export), so a user's running portal jobs can be counted
-- from the moment of the start (temporal/jobs.ts: the per-user cap, PORTAL_JOBS_PER_USER), before
-- Temporal's listing shows the job with its memo. Null for a schedule's or a cron's start.
ALTER TABLE portal_job_starts ADD COLUMN started_by text;
