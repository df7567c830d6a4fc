-- The CF extract pipeline (docs/cf.md): each extract record follows its batch step by step, keeps
-- the portal's ids (order, cart item, document) for reconciliation, and records the intent to
-- submit BEFORE the submit call, so a retried or resumed batch never pays twice.
ALTER TABLE cf_extracts
  ADD COLUMN current_step      text,                 -- machine step of the batch (queued, cart, metadata, submit, poll, download, store, notify, done)
  ADD COLUMN step_no           integer NOT NULL DEFAULT 0,
  ADD COLUMN batch_size        integer,              -- parcels in the batch (order_id) this extract belongs to
  ADD COLUMN portal_account    text,                 -- the certificate-portal account whose queue runs the batch
  ADD COLUMN portal_order_id   text,                 -- the portal's order, once submitted
  ADD COLUMN portal_item_id    text,                 -- the portal's cart item
  ADD COLUMN portal_document_id text,
  ADD COLUMN cf_number         text,                 -- personal data: shown only to viewers allowed to see it
  ADD COLUMN uat_name          text,
  ADD COLUMN submit_intent_at  timestamptz,          -- written before the submit activity runs
  ADD COLUMN submitted_at      timestamptz;
CREATE INDEX cf_extracts_in_flight ON cf_extracts (created_at)
  WHERE status IN ('pending', 'cart', 'submitted', 'processing', 'downloading');

-- The certificate-portal account connection (POST /api/cfportal/session), separate from the
-- land-registry session: credentials sealed with ENCRYPTION_SECRET (domain/crypto/secretBox).
CREATE TABLE cfportal_sessions (
  id                     text PRIMARY KEY DEFAULT 'shared' CHECK (id = 'shared'),
  username               text,
  credentials_encrypted  text,
  connected_at           timestamptz,
  updated_at             timestamptz NOT NULL DEFAULT now()
);
INSERT INTO cfportal_sessions (id) VALUES ('shared');
CREATE TRIGGER cfportal_sessions_touch BEFORE UPDATE ON cfportal_sessions
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();
