/**
 * Imports every benchmark of scripts/bench/ under the loader `npm run bench` runs them with (tsx
 * on the project's Node), without running any: a broken import (a missing file, a named export
 * that Node's ESM loader cannot see in a CommonJS package) fails here instead of in the middle of
 * a bench run. `test/unit/bench-imports.test.ts` runs it inside `npm test`.
 *
 * How it avoids running them: an ES module graph is linked whole (every import resolved, every
 * named import checked against its module's exports) before any module of it is evaluated, so a
 * load hook puts a `throw` of a marker first in each of our modules. An import that rejects with
 * the marker linked; any other rejection is the broken import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { register } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MARKER = 'bench-link-check: linked, not run';
const benchDir = path.dirname(fileURLToPath(import.meta.url));
const rootUrl = pathToFileURL(path.resolve(benchDir, '../..') + path.sep).href;

const hooks = `
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (loaded.format !== 'module' || !url.startsWith(${JSON.stringify(rootUrl)}) || url.includes('/node_modules/')) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  return { ...loaded, source: 'throw new Error(' + JSON.stringify(${JSON.stringify(MARKER)}) + ');' + source };
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

const files = fs.readdirSync(benchDir).filter((f) => f.endsWith('.ts') && !f.startsWith('_')).sort();
let broken = 0;
for (const f of files) {
  try {
    await import(pathToFileURL(path.join(benchDir, f)).href);
    broken++;
    console.log(`${f}: ran instead of only linking`);
  } catch (err) {
    if (err instanceof Error && err.message === MARKER) {
      console.log(`${f}: ok`);
    } else {
      broken++;
      console.log(`${f}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    }
  }
}
process.exit(broken ? 1 : 0);
