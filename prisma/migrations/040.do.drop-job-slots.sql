-- Issue 43 item 4: "one at a time" per resource is Temporal's. A job that locks a resource runs
-- under the resource as its workflow id (`uat:<siruta>`, `county:<name>`…), which Temporal
-- refuses to start twice while a run holds it, so the leases and last-started ids of job_slots
-- have nothing left to guard (docs/architecture.md "Jobs").
DROP TABLE job_slots;
