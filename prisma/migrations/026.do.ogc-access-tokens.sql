-- Issue 29: personal access tokens for desktop GIS (QGIS, GDAL) on GET /ogc/* and GET /tiles/*.
-- Only the SHA-256 of the secret is kept: the secret is 256 random bits, so a plain hash is as
-- good as a slow KDF and costs nothing per request. `identity` is what the token signs in as
-- (user, groups, enrichment scope), taken at creation and refreshed at each sign-in of the user.
CREATE TABLE personal_access_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       text NOT NULL,
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  token_hash    text NOT NULL UNIQUE,
  identity      jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX personal_access_tokens_user ON personal_access_tokens (user_id, created_at);
