-- Issue 25 (access): storage namespaces get an owner, and sessions keep no token in clear.

-- A namespace belongs to a company (`company:<letter>`, shared by its users) or to one user
-- (`user:<id>`); the same name under two owners is two namespaces. Records written before owners
-- existed cannot be attributed: they go to the group company G, which reads every company's
-- namespaces, and an administrator of G can move them.
ALTER TABLE storage_items ADD COLUMN owner text;
UPDATE storage_items SET owner = 'company:G';
ALTER TABLE storage_items ALTER COLUMN owner SET NOT NULL;
ALTER TABLE storage_items DROP CONSTRAINT storage_items_pkey;
ALTER TABLE storage_items ADD PRIMARY KEY (owner, namespace, key);

-- Refresh and ID tokens are now sealed (api/auth/sessionStore.ts); a row still holding them in
-- clear is signed out rather than left readable. Its user signs in again.
DELETE FROM app_sessions WHERE data->'tokens' ? 'refreshToken' OR data->'tokens' ? 'idToken';
