import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    // *.exclusive.test.ts saturate every core on purpose (busy-host comparisons): npm test runs
    // them in a phase of their own after the rest (test:unit excludes them, test:exclusive runs them)
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'e2e/**', '.next/**', '.data/**', '.test-data/**'],
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores here: files run in parallel across forks, each on its own database.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
