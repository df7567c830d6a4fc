-- Issue 28, "jobs from one table": a job_slots row is now the lock of one resource
-- (temporal/common/jobTable.ts: kind = the resource, `uat`, `county`…; scope = its id), held
-- by jobs of any kind, and a parent workflow records its child there too. The job id a row
-- holds is only meaningful in one Temporal namespace, so the namespace is part of the key
-- (each test file runs in a namespace of its own against one database). Rows of the former
-- per-kind slots name no resource and go.
DELETE FROM job_slots;
ALTER TABLE job_slots ADD COLUMN namespace text NOT NULL DEFAULT 'default';
ALTER TABLE job_slots DROP CONSTRAINT job_slots_pkey;
ALTER TABLE job_slots ADD PRIMARY KEY (namespace, kind, scope);
