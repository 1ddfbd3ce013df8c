import next from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

export default [
  { ignores: ['node_modules/**', '.next/**', '.data/**', '.test-data/**', 'db/migrations/**', 'next-env.d.ts', 'test-results/**', 'playwright-report/**'] },
  ...next,
  ...nextTs,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // One settings module (issue 14): only core/settings.ts reads the environment. Entry points
  // call settings(), libraries take settings as parameters, tests pass parseSettings({...}),
  // and child processes get childEnv({...}) (also in core/settings.ts).
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    rules: {
      'no-restricted-properties': ['error', {
        object: 'process',
        property: 'env',
        message: 'read settings from core/settings.ts (settings(), or take them as a parameter; childEnv() for a child process) and add new variables to its schema',
      }],
    },
  },
  {
    files: [
      // the settings module, and its test (childEnv is checked against the real environment)
      'core/settings.ts',
      'core/settings.test.ts',
      // plain JavaScript, which cannot import core/settings.ts: the web front (PORT, NODE_ENV,
      // NEXT_TELEMETRY_DISABLED) and Next's config (NODE_ENV, CRUCIBLE_NEXT_DIST)
      'scripts/*.mjs',
      'next.config.mjs',
      // Playwright's process, configured by scripts/e2e.ts through the environment it spawns it
      // with (CI, CHROMIUM_PATH, E2E_*): its config and the specs' one reader of that environment
      'playwright.config.ts',
      'e2e/support.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // TODO(issue 14): P3/P5 remove. Not yet moved to core/settings.ts: the sandbox, policy,
    // scheduler and RL libraries, and the envInt helper they still import.
    files: ['workers/sandbox/**', 'workers/policy/**', 'workers/scheduler/**', 'workers/rl/**', 'workers/runtime/settings.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
];
