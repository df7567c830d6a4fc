-- The notifications module (domain/notifications): the watchlist type joins the CONTRACT.md
-- list, and a caller-given idempotency key makes a retried notify() write one row, not two.
ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_type_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_type_check CHECK (type IN ('status-change',
  'county-sync-done', 'registry-deadline', 'weekend-sync-failed', 'cf-extract-ready', 'export-ready', 'watch-change'));
ALTER TABLE notifications ADD COLUMN IF NOT EXISTS idempotency_key text;
CREATE UNIQUE INDEX IF NOT EXISTS notifications_idempotency ON notifications (idempotency_key) WHERE idempotency_key IS NOT NULL;
ALTER TABLE notification_preferences ADD COLUMN IF NOT EXISTS watch_change boolean NOT NULL DEFAULT true;
