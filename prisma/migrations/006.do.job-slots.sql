-- One row per (job kind, scope): the last job the API started for it (api/landreg/jobs.ts
-- startExclusive). Temporal's visibility (search attributes) is eventually consistent, so two
-- requests a few milliseconds apart could both see "nothing running" and both start; the API
-- checks and claims this row under an advisory lock and asks Temporal about the exact id it
-- holds (a strongly consistent describe).
CREATE TABLE job_slots (
  kind        text NOT NULL,
  scope       text NOT NULL,
  job_id      text NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, scope)
);
