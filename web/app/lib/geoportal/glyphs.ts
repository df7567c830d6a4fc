/**
 * Map label glyphs without internet. MapLibre draws text only from SDF glyph ranges (protobuf)
 * fetched from the style's `glyphs` URL, normally a font server. Instead, the `localglyphs://`
 * protocol renders each requested 256-character range in the browser with TinySDF from the
 * system's sans-serif font and encodes it in the glyph protobuf format MapLibre reads, so labels
 * work offline, need no font files in the repository, and carry Romanian diacritics (ă â î ș ț,
 * ranges 0-255 and 256-511) as well as digits.
 */
import TinySDF from '@mapbox/tiny-sdf';
import { PbfWriter } from 'pbf';

export const GLYPHS_URL = 'localglyphs://{fontstack}/{range}';
export const LABEL_FONT = ['Sans Regular'];

// MapLibre's own glyph metrics: 24 px em, 3 px buffer; `top` is measured from a baseline 27 px
// below the glyph box top (the same correction MapLibre applies to its locally drawn glyphs).
const FONT_SIZE = 24;
const BUFFER = 3;
const RADIUS = 8;
const TOP_ADJUST = 27;

interface Glyph {
  id: number;
  bitmap: Uint8Array;
  width: number;
  height: number;
  left: number;
  top: number;
  advance: number;
}

let sdf: TinySDF | undefined;

function drawRange(start: number): Glyph[] {
  sdf ??= new TinySDF({
    fontSize: FONT_SIZE,
    buffer: BUFFER,
    radius: RADIUS,
    cutoff: 0.25,
    fontFamily: "'Noto Sans', 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif",
    fontWeight: '600',
  });
  const out: Glyph[] = [];
  for (let id = start; id < start + 256; id++) {
    // Control characters and surrogates have no glyph.
    if (id < 32 || (id >= 0x7f && id < 0xa0) || (id >= 0xd800 && id < 0xe000)) continue;
    const g = sdf.draw(String.fromCharCode(id));
    out.push({
      id,
      bitmap: g.glyphWidth > 0 ? new Uint8Array(g.data.buffer, g.data.byteOffset, g.data.length) : new Uint8Array(0),
      width: g.glyphWidth,
      height: g.glyphHeight,
      left: Math.round(g.glyphLeft),
      top: Math.round(g.glyphTop - TOP_ADJUST),
      advance: Math.round(g.glyphAdvance),
    });
  }
  return out;
}

/** The glyph range protobuf: glyphs { stacks { name, range, glyphs { id, bitmap, w, h, left, top, advance } } }. */
export function encodeGlyphRange(fontstack: string, start: number, glyphs: Glyph[]): ArrayBuffer {
  const pbf = new PbfWriter();
  pbf.writeMessage(
    1,
    (_: null, p: PbfWriter) => {
      p.writeStringField(1, fontstack);
      p.writeStringField(2, `${start}-${start + 255}`);
      for (const g of glyphs) {
        p.writeMessage(
          3,
          (glyph: Glyph, q: PbfWriter) => {
            q.writeVarintField(1, glyph.id);
            if (glyph.bitmap.length) q.writeBytesField(2, glyph.bitmap);
            q.writeVarintField(3, glyph.width);
            q.writeVarintField(4, glyph.height);
            q.writeSVarintField(5, glyph.left);
            q.writeSVarintField(6, glyph.top);
            q.writeVarintField(7, glyph.advance);
          },
          g,
        );
      }
    },
    null,
  );
  const bytes = pbf.finish();
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

const cache = new Map<string, ArrayBuffer>();

/** The protocol handler for maplibregl.addProtocol('localglyphs', ...). */
export async function localGlyphs(params: { url: string }): Promise<{ data: ArrayBuffer }> {
  const m = /^localglyphs:\/\/([^/]+)\/(\d+)-\d+/.exec(params.url);
  if (!m) throw new Error(`bad glyph URL ${params.url}`);
  const fontstack = decodeURIComponent(m[1]);
  const start = Number(m[2]);
  const key = `${fontstack}/${start}`;
  let data = cache.get(key);
  if (!data) {
    data = encodeGlyphRange(fontstack, start, drawRange(start));
    cache.set(key, data);
  }
  return { data: data.slice(0) };
}
