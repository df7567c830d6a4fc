/**
 * No import cycle anywhere in the project, type imports counted, and no arrow from the client
 * side of Temporal back up to the workflows (docs/architecture.md "Dependencies"): run by
 * `npm run lint` and the lint step of scripts/test.sh. ESLint's
 * import-x/no-cycle skips type-only imports, and a loop closed by types still ties the modules
 * together (the one the project had ran through temporal/jobs.ts and workflows/index.ts).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- dependency-cruiser reads a CommonJS file */
const fs = require('node:fs');
const path = require('node:path');

/**
 * The kernel: the folders of domain/ every area builds on (the store's pool and Prisma, crypto,
 * text and geometry helpers, the shared limits, the mail transport, the tile views). Every other
 * folder of domain/ is an area, behind its door (docs/architecture.md "Areas"); an area's record
 * is in domain/areas.ts (test/unit/areas.test.ts holds the two to each other).
 */
const KERNEL = ['crypto', 'db', 'geo', 'limits', 'mail', 'net', 'store', 'text'];
const AREAS = fs
  .readdirSync(path.join(__dirname, 'domain'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !KERNEL.includes(d.name))
  .map((d) => d.name)
  .sort();

module.exports = {
  forbidden: [
    ...AREAS.map((area) => ({
      name: `area-door-${area}`,
      severity: 'error',
      comment: `Outside domain/${area}/ only its door, service.ts (built once per process, domain/services.ts), its pure rules.ts or its jobs' types, jobTypes.ts, may be imported (types included); a unit test tests the area's parts from test/.`,
      from: { pathNot: [`^domain/${area}/`, '^test/'] },
      to: { path: `^domain/${area}/`, pathNot: `^domain/${area}/(service|rules|jobTypes)\\.ts$` },
    })),
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module must not reach itself through its imports (type imports included).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'temporal-not-workflows',
      severity: 'error',
      comment:
        'The client side (temporal/) never imports workflow code, types included: what a job takes and answers is in domain/jobWorkflows.ts, which the workflows are held to (workflows/signatures.ts).',
      from: { path: '^temporal/' },
      to: { path: '^workflows/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|build|generated|public/build|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
