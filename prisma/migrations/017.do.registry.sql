-- Registry (registratura, docs/registry.md): the number is the truth of an entry's place in its
-- company's year, whatever format it was written in (spec 2.7, 9.3; CONTRACT.md 3). The trigger
-- derives `sequence` and `year` (and the company of the three-letter format) from `number` on
-- every write, so the numbering query "max(sequence) of company and year" counts legacy and
-- old-format rows however they arrived (API, import, hand-written SQL).
CREATE OR REPLACE FUNCTION f_registry_number_parts(num text, fallback_company text,
  OUT company text, OUT year integer, OUT sequence integer)
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE m text[];
BEGIN
  m := regexp_match(btrim(num), '^([BUSG])-(\d{4})-(\d{1,9})$');
  IF m IS NOT NULL THEN
    company := m[1]; year := m[2]::int; sequence := m[3]::int; RETURN;
  END IF;
  m := regexp_match(upper(btrim(num)), '^(BTG|URB|STD|GRP)-(\d{4})-(IN|OUT)-(\d{1,9})$');
  IF m IS NOT NULL THEN
    company := CASE m[1] WHEN 'BTG' THEN 'B' WHEN 'URB' THEN 'U' WHEN 'STD' THEN 'S' ELSE 'G' END;
    year := m[2]::int; sequence := m[4]::int; RETURN;
  END IF;
  m := regexp_match(btrim(num), '^(\d{1,9})\s*/\s*(\d{4})$');
  IF m IS NOT NULL THEN
    company := fallback_company; year := m[2]::int; sequence := m[1]::int; RETURN;
  END IF;
  RAISE EXCEPTION 'registry number "%" is in none of the three formats', num USING ERRCODE = 'check_violation';
END $$;

-- Number allocation (spec 4.5 rule 1): an INSERT with an empty number asks for the next one.
-- Under the (company, year) advisory lock, held to the end of the transaction, the highest
-- sequence of the actual entries plus one becomes the number and the SEQ counter mirrors it.
-- Done here, inside the INSERT, so the lock is held only while the database works: no client
-- round trip (and no busy event loop) sits inside the serialised section. Each statement of this
-- VOLATILE function takes a fresh snapshot, so the max() after the lock sees every number
-- committed before the lock was granted.
CREATE OR REPLACE FUNCTION f_registry_entries_number() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE p record;
BEGIN
  IF TG_OP = 'INSERT' AND NEW.number = '' THEN
    PERFORM pg_advisory_xact_lock(hashtext('registry-seq:' || NEW.company || ':' || NEW.year));
    SELECT COALESCE(max(sequence), 0) + 1 INTO NEW.sequence FROM registry_entries WHERE company = NEW.company AND year = NEW.year;
    NEW.number := NEW.company || '-' || NEW.year || '-' || lpad(NEW.sequence::text, greatest(5, length(NEW.sequence::text)), '0');
    INSERT INTO registry_counters (type, company, year, value) VALUES ('SEQ', NEW.company, NEW.year, NEW.sequence)
      ON CONFLICT (type, company, year) DO UPDATE SET value = EXCLUDED.value;
    RETURN NEW;
  END IF;
  p := f_registry_number_parts(NEW.number, NEW.company);
  NEW.company := p.company;
  NEW.year := p.year;
  NEW.sequence := p.sequence;
  RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS registry_entries_number ON registry_entries;
CREATE TRIGGER registry_entries_number BEFORE INSERT OR UPDATE OF number, company ON registry_entries
  FOR EACH ROW EXECUTE FUNCTION f_registry_entries_number();

-- Full-text-ish search (issue 17: subject, sender, recipient, number, notes; case and diacritics
-- ignored, both ş/ș spellings): a trigram index over the same f_norm expression the query uses.
CREATE OR REPLACE FUNCTION f_registry_search_text(subject text, sender text, recipient text, number text, notes text)
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT public.f_norm(coalesce(subject, '') || ' | ' || coalesce(sender, '') || ' | ' || coalesce(recipient, '') || ' | ' || coalesce(number, '') || ' | ' || coalesce(notes, '')) $$;
CREATE INDEX IF NOT EXISTS registry_entries_search_trgm ON registry_entries
  USING gin (f_registry_search_text(subject, sender, recipient, number, notes) gin_trgm_ops);
-- Restricted viewers (personal data hidden) search without the sender and recipient.
CREATE OR REPLACE FUNCTION f_registry_search_text_restricted(subject text, number text, notes text)
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT public.f_norm(coalesce(subject, '') || ' | ' || coalesce(number, '') || ' | ' || coalesce(notes, '')) $$;

CREATE INDEX IF NOT EXISTS registry_entries_company_year_date ON registry_entries (company, year, date DESC, sequence DESC);

-- Who last changed the entry (the history keeps every change).
ALTER TABLE registry_entries ADD COLUMN IF NOT EXISTS updated_by text;

-- Per-entry audit trail: create, update, renumber, delete, attachment and status changes. No
-- foreign key: the trail of a deleted entry is kept (auditors ask about removed numbers too).
CREATE TABLE IF NOT EXISTS registry_entry_history (
  id          bigserial PRIMARY KEY,
  entry_id    uuid NOT NULL,
  company     text NOT NULL,
  number      text NOT NULL,
  action      text NOT NULL CHECK (action IN ('create', 'update', 'renumber', 'delete', 'attachment-add',
                                              'attachment-remove', 'attachment-migrate', 'status-change')),
  actor_id    text,
  actor_name  text,
  at          timestamptz NOT NULL DEFAULT now(),
  changes     jsonb NOT NULL DEFAULT '[]'::jsonb       -- [{field, before, after}]
);
CREATE INDEX IF NOT EXISTS registry_entry_history_entry ON registry_entry_history (entry_id, at, id);
