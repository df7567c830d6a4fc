/**
 * Every setting the service reads is documented for the operator: each environment variable
 * named in domain/config.ts (the one reader of the environment) has a line in .env.example.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../domain/config';

const source = fs.readFileSync(path.join(projectRoot, 'domain/config.ts'), 'utf8');
const example = fs.readFileSync(path.join(projectRoot, '.env.example'), 'utf8');

const readByConfig = [
  ...new Set([
    ...[...source.matchAll(/\b(?:str|int|list|flag|port)\(\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]),
    ...[...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]),
  ]),
].filter((name) => name !== 'HOME' && name !== 'STACK_PROFILE');

test('config reads a meaningful number of settings (the scan itself works)', () => {
  expect(readByConfig.length).toBeGreaterThan(40);
  expect(readByConfig).toEqual(expect.arrayContaining(['PORT', 'PGPORT', 'OIDC_ISSUER', 'LANDREG_BASE_URL']));
});

test.each(readByConfig)('%s is documented in .env.example', (name) => {
  expect(example).toMatch(new RegExp(`^#?\\s*${name}=`, 'm'));
});
