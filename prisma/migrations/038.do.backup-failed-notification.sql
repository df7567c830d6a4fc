-- Backups (docs/operations.md "Backups"): a failed or late backup notifies the administrators,
-- a notification type of its own with its own switch.
ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_type_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_type_check CHECK (type IN ('status-change',
  'county-sync-done', 'registry-deadline', 'weekend-sync-failed', 'cf-extract-ready', 'export-ready', 'watch-change',
  'backup-failed'));
ALTER TABLE notification_preferences ADD COLUMN IF NOT EXISTS backup_failed boolean NOT NULL DEFAULT true;
