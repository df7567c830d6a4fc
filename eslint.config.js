import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const LIBREDWG = {
  name: '@mlightcad/libredwg-web',
  message: 'LibreDWG (GPL-3.0) stays in sidecars/dwg/; call the sidecar over HTTP (domain/dwg/converter.ts).',
};
const TEMPORAL_CLIENT = 'Workflows and activities import only temporal/common/ (queues, retry policies, singletons, search attributes, failures, progress); the client part of temporal/ is for the API, the workers\' start-up and scripts.';
const CLIENT_PACKAGES = [
  { name: '@temporalio/client', message: TEMPORAL_CLIENT },
  { name: 'ulid', message: 'ulid draws on node:crypto; a workflow makes child ids with workflows/childJobId.ts.' },
];

// Dependencies passed in (docs/architecture.md "Dependencies passed in"): the process's pool and
// Prisma client reach code as the store its entry point built, never through a getter.
const PROCESS_GETTERS = {
  selector: "ImportSpecifier[imported.name=/^(getPool|getPrisma|getTilePool|createPrisma)$/]",
  message: 'Take the store (domain/db/store.ts) as a dependency: the entry point builds it (processStore / createStore) and passes it down.',
};
// Where the getters may be read: the store itself (domain/db/) and the entry points that build
// it (api/server.ts, workers/main.ts, below); scripts are entry points too (docs/architecture.md
// "Dependencies passed in").
const PROCESS_GETTER_USERS = ['domain/db/**'];

// One transport for outside calls (docs/architecture.md "One way to call outside"): the clients of
// outside systems send through domain/outside/transport.ts, never through a transport of their own.
const OUTSIDE_CLIENTS = ['domain/landreg/**/*.ts', 'domain/cfportal/**/*.ts', 'domain/central/**/*.ts', 'domain/pdf/**/*.ts', 'domain/registry/**/*.ts', 'domain/ai/**/*.ts'];
const OWN_TRANSPORT = 'Send through domain/outside/transport.ts (send, outsideFetch): one keep-alive pool, the shared rate limit, the deadline and the caller\'s stop.';
const TRANSPORT_MODULES = ['undici', 'node:http', 'node:https', 'http', 'https'].map((name) => ({ name, message: OWN_TRANSPORT, allowTypeImports: true }));
const BARE_FETCH = { selector: "CallExpression[callee.name='fetch']", message: OWN_TRANSPORT };

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
  // The GPL boundary (docs/architecture.md "DWG sidecar"): LibreDWG runs only in the sidecar's
  // own process; everything else reaches it over HTTP.
  {
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['sidecars/dwg/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [LIBREDWG] }] },
  },
  // Workflow code and what it shares with the client (docs/architecture.md "temporal/ in two"):
  // the pure part, temporal/common/, never the client part (connections, job starts, SQL).
  // Activities too: a job start an activity needs is passed in by workers/registry.ts.
  {
    files: ['workflows/**/*.ts', 'activities/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [LIBREDWG, ...CLIENT_PACKAGES], patterns: [{ regex: '(^|/)temporal/(?!common/)', message: TEMPORAL_CLIENT }] }],
    },
  },
  {
    files: ['temporal/common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [LIBREDWG, ...CLIENT_PACKAGES], patterns: [{ regex: '^\\.\\./', message: 'temporal/common/ imports nothing of the project outside itself: workflows and clients both load it.' }] }],
    },
  },
  // Pages change data one way (docs/architecture.md "Web → API"): every browser call to the API
  // or the tile server goes through web/app/lib/api.ts, whose paths are checked against the
  // OpenAPI document and whose one error mapping gives the Romanian message.
  {
    files: ['web/app/**/*.ts', 'web/app/**/*.tsx'],
    ignores: ['web/app/lib/api.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='fetch'], CallExpression[callee.property.name='fetch'][callee.object.name=/^(window|globalThis|self)$/]",
          message: 'Call the API through web/app/lib/api.ts (api.get/post/…, apiFetch, vectorTile), not a bare fetch.',
        },
        // Loaders and actions use the server's store from the load context (context.store).
        PROCESS_GETTERS,
      ],
    },
  },
  {
    files: ['api/**/*.ts', 'domain/**/*.ts', 'activities/**/*.ts', 'workers/**/*.ts', 'temporal/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['api/server.ts', 'workers/main.ts', ...PROCESS_GETTER_USERS],
    rules: { 'no-restricted-syntax': ['error', PROCESS_GETTERS] },
  },
  {
    files: OUTSIDE_CLIENTS,
    rules: {
      'no-restricted-imports': ['error', { paths: [LIBREDWG, ...TRANSPORT_MODULES] }],
      'no-restricted-syntax': ['error', PROCESS_GETTERS, BARE_FETCH],
    },
  },
  // One front door per area (docs/architecture.md "Web → API"): loaders and actions call the
  // domain services the Express handlers call; nothing of the HTTP layer under api/.
  {
    files: ['web/app/**/*.ts', 'web/app/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [LIBREDWG],
          patterns: [{ regex: '^(\\.\\./){2,}api(/|$)', message: 'Web code calls the domain service the route calls (domain/…), never a module under api/.' }],
        },
      ],
    },
  },
  // Simulators stand for outside systems (docs/simulators.md): they answer from their own data
  // with their own code, so a product rule can disagree with them and a test can see it.
  {
    files: ['simulators/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [LIBREDWG],
          patterns: [
            {
              regex: '^(\\.\\./)+(domain|api|web|temporal|workflows|activities|workers|sidecars|scripts)(/|$)',
              message: 'A simulator uses no product code: give it its own (simulators/shared/ for what simulators share).',
            },
          ],
        },
      ],
    },
  },
);
