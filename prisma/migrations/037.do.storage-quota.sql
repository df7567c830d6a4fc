-- Issue 40 (storage per company, CONTRACT.md 6): a company's values are held to a quota, and a
-- namespace name belongs to one company.

-- Each record keeps the UTF-8 size of its value's JSON text as written (the API measures it; the
-- records already there are measured here once) and the holder whose quota it counts against: the
-- company of a company namespace, and of a user's own namespace the user's company (the user
-- when they have none). Older user records count against their user.
ALTER TABLE storage_items ADD COLUMN size_bytes bigint;
ALTER TABLE storage_items ADD COLUMN quota_holder text;
UPDATE storage_items SET size_bytes = octet_length(value::text), quota_holder = owner;
ALTER TABLE storage_items ALTER COLUMN size_bytes SET NOT NULL;
ALTER TABLE storage_items ALTER COLUMN quota_holder SET NOT NULL;

-- What each holder uses, kept by the trigger below in the writing transaction: a write reads one
-- row (and locks it while it checks the quota) instead of summing every value of the company.
CREATE TABLE storage_usage (
  holder      text PRIMARY KEY,
  used_bytes  bigint NOT NULL DEFAULT 0
);
INSERT INTO storage_usage (holder, used_bytes)
  SELECT quota_holder, sum(size_bytes) FROM storage_items GROUP BY quota_holder;

CREATE FUNCTION f_storage_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE storage_usage SET used_bytes = used_bytes - OLD.size_bytes WHERE holder = OLD.quota_holder;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO storage_usage (holder, used_bytes) VALUES (NEW.quota_holder, NEW.size_bytes)
      ON CONFLICT (holder) DO UPDATE SET used_bytes = storage_usage.used_bytes + EXCLUDED.used_bytes;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER storage_items_usage AFTER INSERT OR UPDATE OF size_bytes, quota_holder OR DELETE ON storage_items
  FOR EACH ROW EXECUTE FUNCTION f_storage_usage();

-- Which companies hold a namespace name: read on every storage request (another company's
-- namespace is 404, the group company G reads the one that holds it).
CREATE INDEX storage_items_namespace_owner ON storage_items (namespace, owner);
