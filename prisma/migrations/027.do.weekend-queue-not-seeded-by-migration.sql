-- Issue 30 item 3: the weekend queue's default cities are configuration
-- (WEEKEND_SYNC_DEFAULT_CITIES), added once by a seed step (domain/scheduling/weekend.ts
-- seedWeekendQueue: the demo seed, and the workers' start once the UAT catalogue knows them),
-- not rows of a migration that also runs in production. Migration 021 inserted 9 demo cities and
-- cannot be edited (applied migrations are checksummed), so the rows it inserted are taken back
-- here where nobody used them (every step pending, never run, no error).
DELETE FROM weekend_sync_queue
 WHERE (siruta, name) IN ((42682, 'Brăila'), (63394, 'Sfântu Gheorghe'), (100576, 'Buftea'), (63740, 'Târgu Secuiesc'),
                          (179551, 'Voluntari'), (42753, 'Făurei'), (63526, 'Covasna'), (179481, 'Otopeni'), (43331, 'Ianca'))
   AND last_run_at IS NULL AND last_error IS NULL AND attempts = '{}'::jsonb
   AND steps = '{"sync_terenuri":"pending","sync_cladiri":"pending","import_nogeom":"pending","enrich":"pending"}'::jsonb;

-- An installation whose queue is in use keeps it as it is: the seed step never adds to it.
INSERT INTO gis_settings (key, value)
SELECT 'weekendSync.seeded', 'true'::jsonb WHERE EXISTS (SELECT 1 FROM weekend_sync_queue)
ON CONFLICT (key) DO NOTHING;
