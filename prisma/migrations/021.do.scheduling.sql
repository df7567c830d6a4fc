-- Scheduling (issue 21, docs/scheduling.md): the weekend deep sync queue keeps per-step attempt
-- counters (each failed attempt is notified once: its idempotency key names the attempt) and the
-- time a city was last worked on; the queue starts with the 9 default cities of spec 8.

ALTER TABLE weekend_sync_queue
  ADD COLUMN attempts     jsonb NOT NULL DEFAULT '{}'::jsonb,  -- {sync_terenuri: 2, ...}
  ADD COLUMN last_run_at  timestamptz;

-- Real cities of the demo counties (Brăila, Covasna, Ilfov), the largest of each first.
INSERT INTO weekend_sync_queue (siruta, name, position) VALUES
  (42682, 'Brăila', 1),
  (63394, 'Sfântu Gheorghe', 2),
  (100576, 'Buftea', 3),
  (63740, 'Târgu Secuiesc', 4),
  (179551, 'Voluntari', 5),
  (42753, 'Făurei', 6),
  (63526, 'Covasna', 7),
  (179481, 'Otopeni', 8),
  (43331, 'Ianca', 9)
ON CONFLICT (siruta) DO NOTHING;

-- Weekend queue switches (paused by an admin) and who hears about it.
INSERT INTO gis_settings (key, value) VALUES ('weekendSync.paused', 'false'::jsonb) ON CONFLICT (key) DO NOTHING;
