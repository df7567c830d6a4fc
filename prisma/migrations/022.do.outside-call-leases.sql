-- Issue 13: no outside call (portal sign-in, Temporal) is made while a database transaction or
-- lock is held. What the advisory locks serialised (one portal re-login at a time; one
-- check-and-start per job slot) is now a short lease on a row: claimed and released by single
-- statements, with an expiry so a process that dies while holding one blocks nobody for long.

ALTER TABLE landreg_portal_sessions
  ADD COLUMN relogin_lease        text,
  ADD COLUMN relogin_lease_until  timestamptz;

ALTER TABLE job_slots
  ADD COLUMN claim        text,
  ADD COLUMN claim_until  timestamptz;
