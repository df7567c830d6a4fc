-- Issue 26: CF extracts safe with money.
-- Every certificate-portal account ever connected keeps its sealed credentials here, so a batch
-- queued under an account runs every step as that account, whatever is connected later.
CREATE TABLE cfportal_accounts (
  account               text PRIMARY KEY,
  username              text NOT NULL,
  credentials_encrypted text NOT NULL,
  updated_at            timestamptz NOT NULL DEFAULT now()
);

-- The submit call itself (after the intent): once it was sent, a retry never submits again
-- unless the batch's items are still in the cart; it waits for the portal to list the order.
ALTER TABLE cf_extracts
  ADD COLUMN submit_sent_at timestamptz,
  -- Set when the portal did not list a sent submit in time: an admin reconciles (docs/cf.md).
  ADD COLUMN reconcile_at   timestamptz;

-- The row naming the account in use is the 'shared' slot in production; a test run keeps its own
-- slot (its own connected account) so runs sharing a database never switch each other's account.
ALTER TABLE cfportal_sessions DROP CONSTRAINT IF EXISTS cfportal_sessions_id_check;
