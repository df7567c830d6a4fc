-- Office utilities (issue 19): the vault's key-derivation parameters per record and its access
-- log, and the tag manager's last synced state (the base of the three-way merge).

-- Iterations used for this record's key, so the work factor can be raised later without
-- breaking older records (NULL: legacy plaintext, not yet re-encrypted).
ALTER TABLE vault_entries ADD COLUMN IF NOT EXISTS kdf_iterations integer;
ALTER TABLE vault_entries ADD COLUMN IF NOT EXISTS created_by text;

-- Who read which password and when (spec 5.8; shown in the vault UI). The entry's name is kept
-- so the log survives the entry's deletion.
CREATE TABLE IF NOT EXISTS vault_access_log (
  id          bigserial PRIMARY KEY,
  entry_id    uuid REFERENCES vault_entries (id) ON DELETE SET NULL,
  entry_name  text NOT NULL,
  company     text,
  user_id     text NOT NULL,
  user_email  text NOT NULL,
  action      text NOT NULL DEFAULT 'reveal' CHECK (action IN ('reveal')),
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS vault_access_log_entry_at ON vault_access_log (entry_id, at DESC);
CREATE INDEX IF NOT EXISTS vault_access_log_company_at ON vault_access_log (company, at DESC);

-- The tag lines both sides agreed on at the last sync, per tag file (CONTRACT.md 3).
CREATE TABLE IF NOT EXISTS tag_sync_state (
  file_path   text PRIMARY KEY,
  lines       text[] NOT NULL,
  synced_at   timestamptz NOT NULL DEFAULT now(),
  synced_by   text
);
