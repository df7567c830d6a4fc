/** The DWG tools' format helpers: the version magic and the DXF entity count read as a stream. */
import { describe, expect, test } from '@jest/globals';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { countDxfEntities, dwgVersionOf } from '../../domain/dwg/format';
import { dwgRelease, formatEntityTypes, parseEntityTypes } from '../../domain/dwg/names';

describe('dwgVersionOf', () => {
  test('reads the version magic of a DWG and refuses anything else', () => {
    expect(dwgVersionOf(Buffer.from('AC1015\0\0\0\0'))).toBe('AC1015');
    expect(dwgVersionOf(Buffer.from('AC1032'))).toBe('AC1032');
    expect(dwgVersionOf(Buffer.from('AC2.10'))).toBe('AC2.10');
    expect(dwgVersionOf(Buffer.from('%PDF-1.7'))).toBeNull();
    expect(dwgVersionOf(Buffer.from('  0\nSECTION'))).toBeNull();
    expect(dwgVersionOf(Buffer.from('AC'))).toBeNull();
    expect(dwgRelease('AC1015')).toBe('R2000');
  });
});

describe('countDxfEntities', () => {
  test('counts top-level entities of the ENTITIES section only: not blocks, vertices, attributes or SEQEND', async () => {
    const dxf = [
      '0', 'SECTION', '2', 'HEADER', '9', '$ACADVER', '1', 'AC1015', '0', 'ENDSEC',
      '0', 'SECTION', '2', 'BLOCKS', '0', 'BLOCK', '2', 'B', '0', 'LINE', '0', 'ENDBLK', '0', 'ENDSEC',
      '0', 'SECTION', '2', 'ENTITIES',
      '0', 'LINE', '8', '0', '0', 'LINE', '8', '0',
      '0', 'POLYLINE', '0', 'VERTEX', '0', 'VERTEX', '0', 'SEQEND',
      '0', 'INSERT', '2', 'B', '0', 'ATTRIB', '0', 'SEQEND',
      '0', 'TEXT', '1', 'SECTION',
      '0', 'ENDSEC', '0', 'EOF',
    ].map((l, i) => (i % 2 === 0 ? `  ${l}` : l)).join('\r\n');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dxf-count-'));
    try {
      await fs.writeFile(path.join(dir, 'a.dxf'), dxf);
      expect(await countDxfEntities(path.join(dir, 'a.dxf'))).toEqual({ total: 5, byType: { LINE: 2, POLYLINE: 1, INSERT: 1, TEXT: 1 } });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('the entity-types header round-trips, most frequent first', () => {
    const header = formatEntityTypes({ TEXT: 1, LINE: 3, CIRCLE: 1 });
    expect(header).toBe('LINE=3;CIRCLE=1;TEXT=1');
    expect(parseEntityTypes(header)).toEqual({ LINE: 3, CIRCLE: 1, TEXT: 1 });
    expect(parseEntityTypes(undefined)).toEqual({});
  });
});
