-- Notifications (issue 18): the users directory the module mails to, the e-mail channel of each
-- notification, a mail outbox delivered by Temporal (idempotent per key, marked sent only after
-- the SMTP server accepted it), and the watchlist with its per-parcel change history.

-- Users live in the identity provider; every sign-in upserts the row (api/auth/routes.ts).
CREATE TABLE app_users (
  id             text PRIMARY KEY,                      -- OIDC sub
  email          text NOT NULL,
  name           text,
  company        text CHECK (company IN ('B', 'U', 'S', 'G')),
  is_admin       boolean NOT NULL DEFAULT false,
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  last_seen_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_users_admin ON app_users (id) WHERE is_admin;

-- Which e-mail a notification gets: instant (sent at once), digest (held for the 07:00 digest),
-- NULL (in-app only). emailed_at: when its instant mail or digest was queued.
ALTER TABLE notifications ADD COLUMN email_channel text CHECK (email_channel IN ('instant', 'digest'));
ALTER TABLE notifications ADD COLUMN emailed_at timestamptz;
ALTER TABLE notifications ADD COLUMN critical boolean NOT NULL DEFAULT false;
CREATE INDEX notifications_digest_pending ON notifications (user_id, created_at)
  WHERE email_channel = 'digest' AND emailed_at IS NULL;

CREATE TABLE mail_outbox (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  idempotency_key  text NOT NULL UNIQUE,
  kind             text NOT NULL CHECK (kind IN ('notification', 'digest', 'test-digest', 'report')),
  user_ids         text[] NOT NULL DEFAULT '{}',
  recipients       text[] NOT NULL,
  subject          text NOT NULL,
  html             text NOT NULL,
  text             text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent')),
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  message_id       text,
  smtp_response    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz
);
CREATE INDEX mail_outbox_pending ON mail_outbox (created_at) WHERE status = 'pending';

-- Watchlist: a user follows a parcel or a whole UAT.
CREATE TABLE watchlist (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('parcel', 'uat')),
  siruta      integer NOT NULL,
  feature_id  uuid,                                     -- parcel follows; kept after the parcel is removed
  label       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'parcel') = (feature_id IS NOT NULL))
);
CREATE UNIQUE INDEX watchlist_user_feature ON watchlist (user_id, feature_id) WHERE kind = 'parcel';
CREATE UNIQUE INDEX watchlist_user_uat ON watchlist (user_id, siruta) WHERE kind = 'uat';
CREATE INDEX watchlist_siruta ON watchlist (siruta);
CREATE INDEX watchlist_feature ON watchlist (feature_id) WHERE feature_id IS NOT NULL;

-- Last known state of each watched parcel's followed fields; a sync or an enrichment write
-- compares against it (domain/notifications/watch.ts).
CREATE TABLE watch_snapshots (
  feature_id      uuid PRIMARY KEY,
  siruta          integer NOT NULL,
  layer_id        text NOT NULL,
  object_id       bigint NOT NULL,
  cadastral_ref   text,
  owners          text,
  nr_cf           text,
  area_value      double precision,
  geom_hash       text,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX watch_snapshots_uat ON watch_snapshots (siruta, layer_id);

-- Per-parcel change history (CONTRACT.md 4: feature-history). Field names: PROPRIETARI, NR_CF,
-- SUPRAFATA, GEOMETRIE, ELIMINATA. `notified` turns true once the followers were notified.
CREATE TABLE feature_changes (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  feature_id   uuid NOT NULL,
  siruta       integer NOT NULL,
  at           timestamptz NOT NULL DEFAULT now(),
  field        text NOT NULL,
  before       text,
  after        text,
  sync_run_id  uuid,
  notified     boolean NOT NULL DEFAULT false
);
CREATE INDEX feature_changes_pending ON feature_changes (siruta) WHERE NOT notified;
CREATE INDEX feature_changes_feature ON feature_changes (feature_id, at DESC);
CREATE INDEX feature_changes_uat_at ON feature_changes (siruta, at DESC);
