-- A portal job's start (a sync or an export, spec 3.1's disconnect rule), recorded just before its
-- workflow starts. The rule reads Temporal's listing, which shows a started workflow a moment after
-- its start (visibility is written asynchronously: seconds on a loaded host), so a disconnect asked
-- in that moment would be allowed and drop the session the job is about to use. temporal/jobs.ts
-- joins these rows to the listing and asks Temporal about each by id (strongly consistent). Rows
-- older than a few minutes have nothing left to say and are pruned by the next start. The job id
-- is only meaningful in one Temporal namespace (each test file runs in its own).
CREATE TABLE portal_job_starts (
  namespace    text NOT NULL,
  job_id       text NOT NULL,
  workflow_id  text NOT NULL,
  kind         text NOT NULL,
  siruta       integer,
  started_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (namespace, job_id)
);
CREATE INDEX portal_job_starts_started ON portal_job_starts (namespace, started_at);
