-- Issue 44 item 3: limits that stay global with N web processes. Used only in shared mode
-- (WEB > 1 or SHARED_LIMITS=1, domain/limits/); a single process keeps its limits in memory.

-- Heavy work in flight (domain/concurrency.ts WorkSlots): one row per held slot. The holder's
-- process renews `expires_at` while the work runs, so a killed process frees its slots when they
-- expire instead of holding them for ever.
CREATE UNLOGGED TABLE work_slot_leases (
  id          uuid PRIMARY KEY,
  kind        text NOT NULL,
  caller_key  text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX work_slot_leases_kind ON work_slot_leases (kind, caller_key);

-- Per-minute request counts (api/http/rateLimit.ts, an express-rate-limit store): one row per key
-- and window, reset by the first hit after `reset_at`. Unlogged: a crash loses at most a minute's
-- counts, and the hot upsert writes no WAL.
CREATE UNLOGGED TABLE rate_limit_hits (
  key       text PRIMARY KEY,
  hits      integer NOT NULL,
  reset_at  timestamptz NOT NULL
);

-- A session changed or gone (sign-out, another sign-in, token refresh, the idle sweep) is named
-- on channel `app_sessions_changed`, so every web process drops its cached copy at once
-- (api/auth/sessionStore.ts). The once-a-minute touch (last_seen_at only) does not fire it.
CREATE FUNCTION f_app_sessions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('app_sessions_changed', OLD.id);
  RETURN NULL;
END $$;
CREATE TRIGGER app_sessions_changed AFTER DELETE OR UPDATE OF data, expires_at ON app_sessions
  FOR EACH ROW EXECUTE FUNCTION f_app_sessions_changed();
