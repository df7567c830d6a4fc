-- Issue 28, "one outside-call base": the call schedule of each outside service (the portals,
-- the central API, the PDF service, the status authority, the AI providers), shared by the API
-- and every worker process (domain/outside/rateLimiter.ts SharedPace). `next_at` is the start
-- of the next free slot; a process books slots with one conditional UPDATE under the row's lock.
CREATE TABLE outside_call_pace (
  service text PRIMARY KEY,
  next_at timestamptz NOT NULL
);
