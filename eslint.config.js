import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'build/', '.data/', 'generated/', 'prisma/generated/', 'public/build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The GPL boundary (docs/architecture.md "DWG sidecar"): LibreDWG runs only in the sidecar's
    // own process; everything else reaches it over HTTP.
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['sidecars/dwg/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: '@mlightcad/libredwg-web', message: 'LibreDWG (GPL-3.0) stays in sidecars/dwg/; call the sidecar over HTTP (domain/dwg/converter.ts).' }] }],
    },
  },
);
