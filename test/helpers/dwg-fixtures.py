"""Writes real DWG (R2000, AC1015) test drawings with ezdwg (MIT), from a JSON description.

    <ezdwg venv>/bin/python test/helpers/dwg-fixtures.py <out dir> < drawings.json

drawings.json: [{"name": "lines", "lines": [[x1, y1, x2, y2], ...], "circles": [[x, y, r], ...],
"texts": [[text, x, y, height], ...], "blocks": {"NAME": {"lines": [...], "circles": [...]}},
"inserts": [["NAME", x, y], ...]}, ...]. Writes <out dir>/<name>.dwg for each; the test that
sends the JSON knows what was drawn and counts it again in the converted DXF.
"""
import json
import os
import sys

import ezdwg


def draw(layout, spec):
    for x1, y1, x2, y2 in spec.get("lines", []):
        layout.add_line((x1, y1, 0.0), (x2, y2, 0.0))
    for x, y, r in spec.get("circles", []):
        layout.add_circle((x, y, 0.0), r)
    for text, x, y, height in spec.get("texts", []):
        layout.add_text(text, (x, y, 0.0), height)


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for spec in json.load(sys.stdin):
        doc = ezdwg.new()
        # ANSI_1250 (Central Europe), as Romanian drawings are saved: it has ă â î and the
        # cedilla ş ţ, not the comma-below ș ț (those only exist in Unicode drawings).
        doc.header["codepage"] = 28
        for name, block in spec.get("blocks", {}).items():
            draw(doc.blocks.new(name), block)
        msp = doc.modelspace()
        draw(msp, spec)
        for name, x, y in spec.get("inserts", []):
            msp.add_blockref(name, (x, y, 0.0))
        result = doc.save(os.path.join(out_dir, spec["name"] + ".dwg"))
        if result.skipped_entities:
            raise SystemExit(f"{spec['name']}: ezdwg skipped {result.skipped_entities} entities")


if __name__ == "__main__":
    main()
