/**
 * No import cycle anywhere in the project, type imports counted, and no arrow from the client
 * side of Temporal back up to the workflows (docs/architecture.md "Dependencies"): run by
 * `npm run lint` and the lint step of scripts/test.sh. ESLint's
 * import-x/no-cycle skips type-only imports, and a loop closed by types still ties the modules
 * together (the one the project had ran through temporal/jobs.ts and workflows/index.ts).
 */
module.exports = {
  forbidden: [
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
