/**
 * One conversion, in a child process of its own (forked by convert.ts): LibreDWG's WebAssembly
 * reads the DWG and writes the DXF, then this process exits. A conversion that loops, aborts or
 * exhausts memory ends only this process; the sidecar kills it after the timeout.
 *
 *   argv: <input.dwg> <output.dxf>; answers one IPC message {code, wrote} and exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createModule } from '@mlightcad/libredwg-web';

export interface ChildResult {
  /** LibreDWG's error bit set: 0 clean, below 128 recoverable (e.g. a wrong CRC), 128+ critical. */
  code: number;
  /** The DXF was written. */
  wrote: boolean;
  message?: string;
}

const [input, output] = process.argv.slice(2);
const send = (r: ChildResult) =>
  new Promise<void>((resolve) => {
    if (process.send) process.send(r, () => resolve());
    else resolve();
  });

try {
  // The package's main entry sits in dist/; the .wasm beside the glue code in wasm/.
  const wasmDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@mlightcad/libredwg-web')), '..', 'wasm');
  const m = await createModule({ locateFile: (f: string) => path.join(wasmDir, f), print: () => undefined, printErr: () => undefined });
  m.FS.writeFile('/in.dwg', fs.readFileSync(input));
  const code = m.dwg_write_dxf('/in.dwg', '/out.dxf');
  const wrote = m.FS.analyzePath('/out.dxf', false).exists;
  if (wrote) fs.writeFileSync(output, m.FS.readFile('/out.dxf'));
  await send({ code, wrote });
  process.exit(0);
} catch (err) {
  // A WebAssembly trap (RuntimeError: unreachable, memory access out of bounds) on a broken file.
  await send({ code: -1, wrote: false, message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
