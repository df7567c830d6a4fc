// Jest runs TypeScript as native ESM through SWC; integration tests talk to the stack that
// scripts/test.sh starts once per run (see docs/architecture.md, "Tests").
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022', transform: { react: { runtime: 'automatic' } } },
      module: { type: 'es6' },
    }],
  },
  transformIgnorePatterns: ['/node_modules/'],
  moduleNameMapper: { '^~/(.*)$': '<rootDir>/web/app/$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/**/__tests__/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/.data/', '/build/'],
  // A browser's Origin header on our own cookie-signed writes (test/helpers/browserOrigin.ts).
  setupFiles: ['<rootDir>/test/helpers/browserOrigin.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
