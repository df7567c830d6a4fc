/**
 * Real DWG drawings for the tests, written by ezdwg (MIT) in the bootstrap's virtualenv from a
 * description (test/helpers/dwg-fixtures.py), so each test knows exactly what was drawn.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../domain/config';

/** Kept in step with EZDWG_VERSION in scripts/bootstrap. */
const EZDWG_VERSION = '0.17.0';
const TOOLS_DIR = process.env.TOOLS_DIR ?? path.join(os.homedir(), '.cache/cadastral-geoportal/tools');
const EZDWG_PYTHON = path.join(TOOLS_DIR, `ezdwg-venv-${EZDWG_VERSION}`, 'bin', 'python');

type Line = [number, number, number, number];
type Circle = [number, number, number];

export interface Drawing {
  /** Written as `<dir>/<name>.dwg`. */
  name: string;
  lines?: Line[];
  circles?: Circle[];
  /** [text, x, y, height]; ANSI_1250 text (ă â î ş ţ; not the comma-below ș ț). */
  texts?: Array<[string, number, number, number]>;
  blocks?: Record<string, { lines?: Line[]; circles?: Circle[] }>;
  inserts?: Array<[string, number, number]>;
}

/** DXF entity type → how many the drawing has in model space (what a converted DXF must hold). */
export function drawnCounts(d: Drawing): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (t: string, n = 0) => {
    if (n) out[t] = (out[t] ?? 0) + n;
  };
  add('LINE', d.lines?.length);
  add('CIRCLE', d.circles?.length);
  add('TEXT', d.texts?.length);
  add('INSERT', d.inserts?.length);
  return out;
}

export function writeDwgFixtures(dir: string, drawings: Drawing[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(EZDWG_PYTHON, [path.join(projectRoot, 'test/helpers/dwg-fixtures.py'), dir], (err, _stdout, stderr) => {
      if (err) reject(new Error(`ezdwg fixtures failed: ${stderr || err.message}`));
      else resolve();
    });
    child.stdin!.end(JSON.stringify(drawings));
  });
}
