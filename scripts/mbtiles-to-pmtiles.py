"""Converts an MBTiles file to a PMTiles v3 archive with the Protomaps converter.

GDAL 3.6 has no PMTiles driver and tippecanoe is not packaged, so the overview builder
(domain/tiles/archive.ts) writes MBTiles with GDAL and calls this script with the Python of the
virtualenv the bootstrap makes (config PMTILES_VENV).

Usage: python mbtiles-to-pmtiles.py <input.mbtiles> <output.pmtiles> <maxzoom> [<generated ISO time>]
"""
import json
import math
import sqlite3
import sys

from pmtiles import convert

# Romania with a margin (west, south, east, north), as ROMANIA_BOUNDS in domain/tiles/tilejson.ts.
ROMANIA_BOUNDS = "20.2,43.6,29.8,48.3"
ROMANIA_CENTER = "24.97,45.94,6"


_header_json = convert.mbtiles_to_header_json


def header_json(mbtiles_metadata):
    """Lifts the MBTiles `json` entry (vector_layers, tilestats) to the top level of the PMTiles
    metadata, as the Go converter does; MapLibre and the pmtiles library read vector_layers there."""
    header, metadata = _header_json(mbtiles_metadata)
    if "json" in metadata:
        metadata.update(json.loads(metadata.pop("json")))
    return header, metadata


convert.mbtiles_to_header_json = header_json


def stamp(path: str, generated: str) -> None:
    """Records the build time in the archive's metadata, so every build is a distinct object."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("DELETE FROM metadata WHERE name = 'generated'")
        conn.execute("INSERT INTO metadata (name, value) VALUES ('generated', ?)", (generated,))
        conn.commit()
    finally:
        conn.close()


def prepare_empty_store(path: str) -> None:
    """An empty store gives GDAL infinite bounds and no tiles, which the converter cannot encode."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT value FROM metadata WHERE name = 'bounds'").fetchone()
        parts = row[0].split(",") if row else []
        if len(parts) != 4 or not all(math.isfinite(float(p)) for p in parts):
            for name, value in (("bounds", ROMANIA_BOUNDS), ("center", ROMANIA_CENTER)):
                conn.execute("DELETE FROM metadata WHERE name = ?", (name,))
                conn.execute("INSERT INTO metadata (name, value) VALUES (?, ?)", (name, value))
            conn.commit()
        # The converter cannot write an archive without tiles. An empty store still gets a valid
        # archive (the spec wants one on a fresh install): one empty vector tile at zoom 0.
        if conn.execute("SELECT count(*) FROM tiles").fetchone()[0] == 0:
            conn.execute("INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (0, 0, 0, ?)", (b"",))
            conn.commit()
    finally:
        conn.close()


def main() -> int:
    if len(sys.argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    source, target, maxzoom = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if len(sys.argv) == 5:
        stamp(source, sys.argv[4])
    prepare_empty_store(source)
    convert.mbtiles_to_pmtiles(source, target, maxzoom)
    return 0


if __name__ == "__main__":
    sys.exit(main())
