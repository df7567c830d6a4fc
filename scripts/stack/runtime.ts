/**
 * The Node.js every process of the project runs on: the version in `.node-version`, which
 * scripts/bootstrap installs into the tools cache and scripts/with-node puts first on PATH.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../domain/config';

export const NODE_VERSION = fs.readFileSync(path.join(projectRoot, '.node-version'), 'utf8').trim();

/** The major of a version written `v24.21.0` or `24.21.0`. */
export function nodeMajor(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

/** Why this process may not run the project (another Node.js major), or undefined when it may. */
export function wrongNode(version = process.version): string | undefined {
  if (nodeMajor(version) === nodeMajor(NODE_VERSION)) return undefined;
  return `this is Node.js ${version}; the project runs on Node.js ${NODE_VERSION} (.node-version): start it with npm start, or prefix the command with 'bash scripts/with-node'`;
}
