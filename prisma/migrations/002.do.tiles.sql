-- Tiles (issue 7): per-source data versions for the tile cache and ETags, the PMTiles overview
-- builds, and the two flat views the overview builder (ogr2ogr) reads.

-- One row per tile source of spec 4.1 (names as in domain/store/views.ts TILE_SOURCES). A sync
-- bumps the sources it touched (domain/tiles/versions.ts bumpTileVersion); a missing row reads as
-- version 0. bumped_at enters the ETag, so a reset database never revives old browser caches.
CREATE TABLE tile_versions (
  source     text PRIMARY KEY,
  version    bigint NOT NULL DEFAULT 0,
  bumped_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per overview archive build (the rebuild webhook's builder, domain/tiles/archive.ts).
CREATE TABLE tile_archive_builds (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  phase        text,
  size_bytes   bigint,
  uat_count    integer,
  parcel_count integer,
  error        text
);
CREATE INDEX tile_archive_builds_started ON tile_archive_builds (started_at DESC);

CREATE SCHEMA IF NOT EXISTS tiles;

-- The overview archive carries only siruta (UATs) and siruta, cadastral_ref, object_id (parcels):
-- spec 2.1 "feature uuid". These read the public tables directly (not the derived tile views), so
-- the derived-object DROP ... CASCADE of domain/store/views.ts never removes them.
CREATE VIEW tiles.overview_uats AS
  SELECT u.siruta, u.geom_3857 AS geom
  FROM public.gis_uats u
  WHERE u.geom_3857 IS NOT NULL;

CREATE VIEW tiles.overview_parcels AS
  SELECT f.siruta, f.cadastral_ref, f.object_id, f.geom_3857 AS geom
  FROM public.gis_features f
  WHERE f.layer_id = 'TERENURI_ACTIVE' AND f.geom_3857 IS NOT NULL;
