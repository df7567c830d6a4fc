-- Core store: spatial tables, sync bookkeeping and the application records.
-- Extensions (postgis, pg_trgm, unaccent) are created by domain/db/migrate.ts before this file runs.
-- Views, and the UAT zoom-geometry trigger, are NOT here: they live in domain/store/views.ts and are
-- applied by the runner after the SQL files (see docs/store.md), so their SQL has one home.

-- ---------------------------------------------------------------------------------------------
-- Helper functions
-- ---------------------------------------------------------------------------------------------

-- unaccent() is only STABLE (it reads a dictionary by name), so it cannot appear in an index
-- expression. Pinning the dictionary by schema makes the wrapper safe to declare IMMUTABLE.
CREATE OR REPLACE FUNCTION f_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;

-- The one normalisation used for every case- and diacritic-insensitive search (cedilla and
-- comma-below spellings both fold to plain letters).
CREATE OR REPLACE FUNCTION f_norm(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.f_unaccent($1)) $$;

-- Owner search looks at current and former owners at once (spec 4.4 search-owner); the trigram
-- index below is built over exactly this expression, so queries must call it the same way.
CREATE OR REPLACE FUNCTION f_owner_text(enrichment jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT public.f_norm(coalesce(enrichment->>'PROPRIETARI', '') || ' | ' || coalesce(enrichment->>'PROPRIETARI_VECHI', '')) $$;

-- ESRI JSON polygon ({"rings": [[[x,y],...],...]} or the bare rings array) to a MultiPolygon in
-- EPSG:3844. ST_BuildArea nests rings by containment, so ring orientation (which the portal does
-- not always respect) does not matter; unclosed rings are closed; invalid input is repaired.
CREATE OR REPLACE FUNCTION f_esri_rings_to_geom(g jsonb) RETURNS geometry(MultiPolygon, 3844)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
  WITH rings AS (
    SELECT r.ring, r.ord
    FROM jsonb_array_elements(
      CASE jsonb_typeof(g)
        WHEN 'object' THEN CASE WHEN jsonb_typeof(g->'rings') = 'array' THEN g->'rings' ELSE '[]'::jsonb END
        WHEN 'array' THEN g
        ELSE '[]'::jsonb
      END) WITH ORDINALITY AS r(ring, ord)
    WHERE jsonb_typeof(r.ring) = 'array'
  ), lines AS (
    SELECT ST_MakeLine(array_agg(ST_MakePoint((p->>0)::float8, (p->>1)::float8) ORDER BY i)) AS line
    FROM rings, jsonb_array_elements(rings.ring) WITH ORDINALITY AS pts(p, i)
    GROUP BY rings.ord
    HAVING count(*) >= 3
  ), closed AS (
    SELECT CASE WHEN ST_IsClosed(line) THEN line ELSE ST_AddPoint(line, ST_StartPoint(line)) END AS line
    FROM lines
  ), area AS (
    SELECT ST_Multi(ST_CollectionExtract(ST_MakeValid(ST_BuildArea(ST_Collect(line))), 3)) AS geom
    FROM closed
  )
  SELECT CASE WHEN geom IS NULL OR ST_IsEmpty(geom) THEN NULL ELSE ST_SetSRID(geom, 3844) END
  FROM area
  $$;

CREATE OR REPLACE FUNCTION f_touch_updated_at() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END $$;

-- ---------------------------------------------------------------------------------------------
-- Spatial store
-- ---------------------------------------------------------------------------------------------

CREATE TABLE gis_uats (
  siruta            integer PRIMARY KEY,
  name              text NOT NULL,
  county            text,
  workspace_pk      integer,
  geometry          jsonb,                              -- ESRI rings, EPSG:3844, as the portal sends them
  geom              geometry(MultiPolygon, 3844),       -- derived from geometry by trigger (or written directly)
  geom_3857         geometry(MultiPolygon, 3857),       -- full resolution for tiles from zoom 12
  geom_z0           geometry(MultiPolygon, 3857),       -- simplified copies for the zoom views;
  geom_z5           geometry(MultiPolygon, 3857),       -- stored in 3857 because tiles render there
  geom_z8           geometry(MultiPolygon, 3857),
  area_value        double precision,
  last_updated_dtm  text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gis_uats_geom_gist ON gis_uats USING gist (geom);
CREATE INDEX gis_uats_geom_3857_gist ON gis_uats USING gist (geom_3857);
CREATE INDEX gis_uats_geom_z0_gist ON gis_uats USING gist (geom_z0);
CREATE INDEX gis_uats_geom_z5_gist ON gis_uats USING gist (geom_z5);
CREATE INDEX gis_uats_geom_z8_gist ON gis_uats USING gist (geom_z8);
CREATE INDEX gis_uats_name_trgm ON gis_uats USING gin (f_norm(name) gin_trgm_ops);
CREATE INDEX gis_uats_county ON gis_uats (county);
CREATE INDEX gis_uats_workspace_pk ON gis_uats (workspace_pk);
CREATE TRIGGER gis_uats_touch BEFORE UPDATE ON gis_uats
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- The layer catalog: which tile view a layer belongs to (spec 2.1: four categories).
CREATE TABLE gis_layers (
  layer_id    text PRIMARY KEY,
  category    text NOT NULL CHECK (category IN ('terenuri', 'cladiri', 'documentatii', 'administrativ')),
  name        text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO gis_layers (layer_id, category, name) VALUES
  ('TERENURI_ACTIVE', 'terenuri', 'Terenuri active'),
  ('CLADIRI_ACTIVE', 'cladiri', 'Clădiri active'),
  ('LIMITE_INTRAV_DYNAMIC', 'administrativ', 'Limite intravilan'),
  ('LIMITE_UAT', 'administrativ', 'Limite UAT');
CREATE TRIGGER gis_layers_touch BEFORE UPDATE ON gis_layers
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

CREATE TABLE gis_sync_runs (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  siruta              integer NOT NULL,
  layer_id            text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('delta', 'full')),
  trigger             text NOT NULL CHECK (trigger IN ('manual', 'schedule', 'county', 'all_counties', 'weekend', 'export', 'auto_refresh')),
  status              text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
  started_at          timestamptz NOT NULL DEFAULT now(),
  finished_at         timestamptz,
  remote_count        integer,
  local_count_before  integer,
  added               integer NOT NULL DEFAULT 0,
  removed             integer NOT NULL DEFAULT 0,
  reenrich_marked     integer NOT NULL DEFAULT 0,
  workflow_id         text,
  error               text
);
CREATE INDEX gis_sync_runs_uat_layer ON gis_sync_runs (siruta, layer_id, started_at DESC);
CREATE INDEX gis_sync_runs_started ON gis_sync_runs (started_at DESC);

CREATE TABLE gis_features (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  layer_id            text NOT NULL,
  siruta              integer NOT NULL,
  object_id           bigint NOT NULL,                  -- negative immovablePk for NO_GEOMETRY imports (spec 2.3)
  cadastral_ref       text,
  area_value          double precision,
  is_active           boolean NOT NULL DEFAULT true,
  geom                geometry(Geometry, 3844),
  geom_3857           geometry(Geometry, 3857),         -- maintained by trigger, read by the tile views
  attributes          jsonb,
  enrichment          jsonb,
  enriched_at         timestamptz,
  geometry_source     text,                             -- 'NO_GEOMETRY' marks immovable-list imports
  reenrich_marked     boolean NOT NULL DEFAULT false,
  reenrich_marked_at  timestamptz,
  valid_from          timestamptz,                      -- remote VALID_FROM; a change marks re-enrichment
  sync_run_id         uuid REFERENCES gis_sync_runs (id) ON DELETE SET NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT gis_features_layer_uat_object_key UNIQUE (layer_id, siruta, object_id)
);
CREATE INDEX gis_features_geom_gist ON gis_features USING gist (geom);
CREATE INDEX gis_features_geom_3857_gist ON gis_features USING gist (geom_3857);
CREATE INDEX gis_features_uat_layer ON gis_features (siruta, layer_id);
-- cadastral_ref is not unique across UATs (spec 2.1): exact lookups always go with siruta.
CREATE INDEX gis_features_uat_cadref ON gis_features (siruta, cadastral_ref);
CREATE INDEX gis_features_cadref_trgm ON gis_features USING gin (cadastral_ref gin_trgm_ops);
CREATE INDEX gis_features_owner_trgm ON gis_features USING gin (f_owner_text(enrichment) gin_trgm_ops)
  WHERE enrichment IS NOT NULL;
CREATE INDEX gis_features_sync_run ON gis_features (sync_run_id);
-- The rolling probe of the 200 oldest-enriched parcels (spec 4.4) reads this order.
CREATE INDEX gis_features_enriched_at ON gis_features (siruta, layer_id, enriched_at NULLS FIRST);

CREATE OR REPLACE FUNCTION f_gis_features_geom_3857() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  NEW.geom_3857 := CASE WHEN NEW.geom IS NULL THEN NULL ELSE ST_Transform(NEW.geom, 3857) END;
  RETURN NEW;
END $$;
CREATE TRIGGER gis_features_geom_3857 BEFORE INSERT OR UPDATE OF geom ON gis_features
  FOR EACH ROW EXECUTE FUNCTION f_gis_features_geom_3857();
CREATE TRIGGER gis_features_touch BEFORE UPDATE ON gis_features
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

CREATE TABLE gis_sync_rules (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  scope        text NOT NULL CHECK (scope IN ('uat', 'county')),
  siruta       integer,
  county       text,
  frequency    text NOT NULL CHECK (frequency IN ('hourly', 'every_6h', 'daily', 'weekly', 'monthly', 'manual')),
  priority     integer NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
  windows      jsonb NOT NULL DEFAULT '[]'::jsonb,  -- [{days:[1-7], start:"HH:MM", end:"HH:MM"}], Europe/Bucharest
  steps        text[] NOT NULL DEFAULT ARRAY['T', 'C', 'N', 'E'] CHECK (steps <@ ARRAY['T', 'C', 'N', 'E']),
  enabled      boolean NOT NULL DEFAULT true,
  last_run_at  timestamptz,
  next_due_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT gis_sync_rules_scope_target CHECK (
    (scope = 'uat' AND siruta IS NOT NULL) OR (scope = 'county' AND county IS NOT NULL))
);
-- Resolution is "UAT rule, then county rule" (spec 2.6), so each target has at most one rule.
CREATE UNIQUE INDEX gis_sync_rules_one_per_uat ON gis_sync_rules (siruta) WHERE scope = 'uat';
CREATE UNIQUE INDEX gis_sync_rules_one_per_county ON gis_sync_rules (county) WHERE scope = 'county';
CREATE INDEX gis_sync_rules_due ON gis_sync_rules (next_due_at) WHERE enabled;
CREATE TRIGGER gis_sync_rules_touch BEFORE UPDATE ON gis_sync_rules
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- Small global settings; the default sync frequency lives here (CONTRACT.md 3).
CREATE TABLE gis_settings (
  key         text PRIMARY KEY,
  value       jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO gis_settings (key, value) VALUES ('sync.defaultFrequency', '"daily"'::jsonb);
CREATE TRIGGER gis_settings_touch BEFORE UPDATE ON gis_settings
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

CREATE TABLE weekend_sync_queue (
  siruta      integer PRIMARY KEY,
  name        text NOT NULL,
  steps       jsonb NOT NULL DEFAULT '{"sync_terenuri":"pending","sync_cladiri":"pending","import_nogeom":"pending","enrich":"pending"}'::jsonb,
  last_error  text,
  position    integer NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX weekend_sync_queue_position ON weekend_sync_queue (position);
CREATE TRIGGER weekend_sync_queue_touch BEFORE UPDATE ON weekend_sync_queue
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- One shared portal session for every client (spec 3.1): the row id is fixed.
CREATE TABLE landreg_portal_sessions (
  id                    text PRIMARY KEY DEFAULT 'shared' CHECK (id = 'shared'),
  username              text,
  cookies_encrypted     text,
  connected_at          timestamptz,
  last_used_at          timestamptz,
  last_health_check_at  timestamptz,
  consecutive_failures  integer NOT NULL DEFAULT 0,
  portal_maintenance    boolean NOT NULL DEFAULT false,
  portal_available      boolean NOT NULL DEFAULT true,
  updated_at            timestamptz NOT NULL DEFAULT now()
);
INSERT INTO landreg_portal_sessions (id) VALUES ('shared');
CREATE TRIGGER landreg_portal_sessions_touch BEFORE UPDATE ON landreg_portal_sessions
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- ---------------------------------------------------------------------------------------------
-- CF extracts
-- ---------------------------------------------------------------------------------------------

CREATE TABLE cf_extracts (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id           text,                               -- null on records older than the field (spec 2.5)
  type              text NOT NULL DEFAULT 'portal' CHECK (type IN ('portal', 'admin')),
  pdf_data          bytea,                              -- legacy inline PDF; new ones live in S3 (s3_key)
  admin_ordered_by  text,
  nr_cadastral      text NOT NULL,
  siruta            integer,
  workspace_pk      integer,
  order_id          text,                               -- shared by a batch: NOT unique
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN
                      ('pending', 'cart', 'submitted', 'processing', 'downloading', 'completed', 'failed', 'cancelled')),
  version           integer NOT NULL DEFAULT 1,
  issued_at         timestamptz,
  expires_at        timestamptz,
  s3_key            text,
  document_name     text,
  error             text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cf_extracts_user ON cf_extracts (user_id);
CREATE INDEX cf_extracts_user_nr ON cf_extracts (user_id, nr_cadastral);
CREATE INDEX cf_extracts_nr_uat ON cf_extracts (nr_cadastral, siruta);
CREATE INDEX cf_extracts_order ON cf_extracts (order_id);
CREATE TRIGGER cf_extracts_touch BEFORE UPDATE ON cf_extracts
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- ---------------------------------------------------------------------------------------------
-- Registry (registratura)
-- ---------------------------------------------------------------------------------------------

CREATE TABLE registry_entries (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  number         text NOT NULL,
  company        text NOT NULL CHECK (company IN ('B', 'U', 'S', 'G')),
  year           integer NOT NULL,
  sequence       integer NOT NULL,
  direction      text NOT NULL CHECK (direction IN ('intrare', 'iesire')),
  date           date NOT NULL DEFAULT CURRENT_DATE,
  subject        text NOT NULL DEFAULT '',
  sender         text,
  recipient      text,
  document_type  text,
  notes          text,
  deadline       date,
  assignee       text,
  attachments    jsonb NOT NULL DEFAULT '[]'::jsonb,    -- [{id, name, size, mimeType}]; bytes live in S3
  tracking       jsonb,                                 -- external status monitoring block, CONTRACT.md 3
  created_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- Not unique on purpose: imported legacy-format entries may repeat a sequence; new numbers are
-- serialised by an advisory lock in the numbering code (spec 4.5 rule 1).
CREATE INDEX registry_entries_company_year_seq ON registry_entries (company, year, sequence DESC);
CREATE INDEX registry_entries_number ON registry_entries (number);
CREATE INDEX registry_entries_deadline ON registry_entries (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX registry_entries_tracked ON registry_entries ((tracking IS NOT NULL)) WHERE tracking IS NOT NULL;
CREATE TRIGGER registry_entries_touch BEFORE UPDATE ON registry_entries
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

CREATE TABLE registry_counters (
  type        text NOT NULL DEFAULT 'SEQ',
  company     text NOT NULL,
  year        integer NOT NULL,
  value       integer NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (type, company, year)
);
CREATE TRIGGER registry_counters_touch BEFORE UPDATE ON registry_counters
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- ---------------------------------------------------------------------------------------------
-- Notifications
-- ---------------------------------------------------------------------------------------------

CREATE TABLE notifications (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     text NOT NULL,
  type        text NOT NULL CHECK (type IN ('status-change', 'county-sync-done', 'registry-deadline',
                                            'weekend-sync-failed', 'cf-extract-ready', 'export-ready')),
  title       text NOT NULL,
  body        text NOT NULL DEFAULT '',
  link        text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  read_at     timestamptz
);
CREATE INDEX notifications_user_created ON notifications (user_id, created_at DESC);
CREATE INDEX notifications_user_unread ON notifications (user_id) WHERE read_at IS NULL;

CREATE TABLE notification_preferences (
  user_id              text PRIMARY KEY,
  email                text,                            -- where digests go; users live in the IdP
  status_change        boolean NOT NULL DEFAULT true,
  county_sync_done     boolean NOT NULL DEFAULT true,
  registry_deadline    boolean NOT NULL DEFAULT true,
  weekend_sync_failed  boolean NOT NULL DEFAULT true,
  cf_extract_ready     boolean NOT NULL DEFAULT true,
  export_ready         boolean NOT NULL DEFAULT true,
  daily_digest         boolean NOT NULL DEFAULT true,
  instant_email        boolean NOT NULL DEFAULT true,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER notification_preferences_touch BEFORE UPDATE ON notification_preferences
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- ---------------------------------------------------------------------------------------------
-- Vault, tags, address book, key-value storage
-- ---------------------------------------------------------------------------------------------

CREATE TABLE vault_entries (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  username    text,
  url         text,
  password    text,                                     -- v1:<salt>:<iv>:<tag>:<ciphertext> at rest (CONTRACT.md 3)
  notes       text,
  company     text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX vault_entries_company ON vault_entries (company);
CREATE TRIGGER vault_entries_touch BEFORE UPDATE ON vault_entries
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- One row per tag path of the tag file: `Project, Phase, Activity` (CONTRACT.md 3).
CREATE TABLE tags (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  path          text NOT NULL UNIQUE,                   -- the full line as written in the tag file
  category      text NOT NULL CHECK (category IN ('project', 'phase', 'activity')),
  project       text NOT NULL,                          -- project level, e.g. 'B-0123 Casa Popescu'
  phase         text,
  activity      text,
  project_code  text,                                   -- e.g. 'B-0123'
  company       text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tags_category_company ON tags (category, company);
CREATE INDEX tags_project_code ON tags (project_code);
CREATE INDEX tags_path_trgm ON tags USING gin (f_norm(path) gin_trgm_ops);
CREATE TRIGGER tags_touch BEFORE UPDATE ON tags
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

CREATE TABLE contacts (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  company     text,                                     -- owning company (B, U, S, G)
  type        text NOT NULL DEFAULT 'person',           -- person, company, institution, ...
  organization text,                                    -- where the contact works
  role        text,
  email       text,
  phone       text,
  address     text,
  notes       text,
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX contacts_company_type ON contacts (company, type);
CREATE INDEX contacts_name_trgm ON contacts USING gin (f_norm(name) gin_trgm_ops);
CREATE TRIGGER contacts_touch BEFORE UPDATE ON contacts
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

CREATE TABLE storage_items (
  namespace   text NOT NULL,
  key         text NOT NULL,
  value       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, key)
);
CREATE TRIGGER storage_items_touch BEFORE UPDATE ON storage_items
  FOR EACH ROW EXECUTE FUNCTION f_touch_updated_at();

-- ---------------------------------------------------------------------------------------------
-- Web sessions (owned by the auth module; shape fixed by it)
-- ---------------------------------------------------------------------------------------------

CREATE TABLE app_sessions (
  id            text PRIMARY KEY,
  user_id       text NOT NULL,
  data          jsonb NOT NULL,
  created_at    timestamptz DEFAULT now(),
  last_seen_at  timestamptz DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX app_sessions_expires_at ON app_sessions (expires_at);
