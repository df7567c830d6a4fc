/**
 * What the DWG tools need to know about the two formats without opening either with LibreDWG:
 * the version magic at the start of a DWG, and the entity counts of a DXF (read as a stream, so a
 * drawing of hundreds of megabytes is never held in memory).
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import readline from 'node:readline';

/** The version magic (`AC1015`…) when the bytes start like a DWG, else null. */
export function dwgVersionOf(head: Uint8Array): string | null {
  const magic = Buffer.from(head.subarray(0, 6)).toString('latin1');
  return /^AC\d{4}$/.test(magic) || /^AC\d\.\d{2}$/.test(magic) || magic === 'MC0.0\0' ? magic.replace(/\0/g, '') : null;
}

/** Reads the first bytes of a file and returns its DWG version, or null for anything else. */
export async function dwgVersionOfFile(file: string): Promise<string | null> {
  const fh = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(6);
    const { bytesRead } = await fh.read(head, 0, 6, 0);
    return bytesRead === 6 ? dwgVersionOf(head) : null;
  } finally {
    await fh.close();
  }
}

export interface DxfEntityCounts {
  /** Top-level entities of the ENTITIES section (model and paper space). */
  total: number;
  /** By DXF type, e.g. `{LINE: 3, CIRCLE: 1, TEXT: 1, INSERT: 1}`. */
  byType: Record<string, number>;
}

/**
 * Parts of another entity, written after it in the ENTITIES section: a POLYLINE's vertices, an
 * INSERT's attributes and the SEQEND closing either. A user counts the polyline or the block, once.
 */
const SUB_ENTITIES = new Set(['VERTEX', 'SEQEND', 'ATTRIB']);

/** Counts the entities of an ASCII DXF file (group code / value line pairs). */
export async function countDxfEntities(file: string): Promise<DxfEntityCounts> {
  const lines = readline.createInterface({ input: createReadStream(file, { encoding: 'latin1' }), crlfDelay: Infinity });
  const byType: Record<string, number> = {};
  let total = 0;
  let code: string | null = null;
  let section: string | null = null;
  let expectSectionName = false;
  for await (const raw of lines) {
    if (code === null) {
      code = raw.trim();
      continue;
    }
    const value = raw.trim();
    if (code === '0') {
      if (value === 'SECTION') expectSectionName = true;
      else if (value === 'ENDSEC') section = null;
      else if (section === 'ENTITIES' && !SUB_ENTITIES.has(value)) {
        byType[value] = (byType[value] ?? 0) + 1;
        total++;
      }
    } else if (code === '2' && expectSectionName) {
      section = value;
      expectSectionName = false;
    }
    code = null;
  }
  return { total, byType };
}
