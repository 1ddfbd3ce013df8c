import next from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

// Layers (docs/architecture.md), one top-level folder each, so a file's layer is its path:
//   core/ (contracts) <- lib/ (libraries) <- platform (db/, server/, workers/, cli/, scripts/, bench/)
//   app/ and components/ (UI) see core/, components/ and the API's types only.
// Checked on resolved paths (relative, `@/` and dynamic imports alike) by
// import/no-restricted-paths, whose resolver eslint-config-next sets.
// What a library may use of the platform: the schema and the client type (db/schema, db/client.ts).
const libraryMayImport = ['./core', './lib', './db/schema', './db/client.ts', './node_modules'];
// test code inside lib/: tests, fixtures and test kits may also use the shared test support
// (test/) and the job loop's handler contract for a fixture handler (workers/jobs/job-handler.ts)
const libraryTestFiles = ['lib/**/*.test.ts', 'lib/**/fixtures/**', 'lib/**/*.testkit.ts'];
const layerMessage =
  'breaks the layers (docs/architecture.md): lib/ imports only core/, lib/ and db/schema + db/client; declare what the library needs as an interface in the library (see lib/sandbox/ports.ts) and implement it above';

const config = [
  {
    ignores: [
      'node_modules/**',
      '.next/**',
      '.next-*/**',
      '.data/**',
      '.test-data/**',
      'db/migrations/**',
      'next-env.d.ts',
      'test-results/**',
      'playwright-report/**',
      'tasks/repo-suite/**',
      'tasks/real-corpus/**',
      // attack programs exactly as the hack suite and the layer tests write them: pieces of modules, not modules
      'lib/agent/grade/fixtures/hacks/**',
      'lib/agent/grade/fixtures/attacks/**',
    ],
  },
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
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'read settings from core/settings.ts (settings(), or take them as a parameter; childEnv() for a child process) and add new variables to its schema',
        },
      ],
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
  // core/ is the contract every layer shares, so it imports nothing from the project.
  {
    files: ['core/**/*.{ts,tsx}'],
    rules: {
      'import/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: './core',
              from: '.',
              except: ['./core', './node_modules'],
              message: 'core/ imports nothing from the project: move what it needs into core/',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['lib/**/*.{ts,tsx}'],
    ignores: libraryTestFiles,
    rules: {
      'import/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: [{ target: './lib', from: '.', except: libraryMayImport, message: layerMessage }] },
      ],
    },
  },
  {
    files: libraryTestFiles,
    rules: {
      'import/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [{ target: './lib', from: '.', except: [...libraryMayImport, './test', './workers/jobs/job-handler.ts'], message: layerMessage }],
        },
      ],
    },
  },
  // Platform services sit below the processes that compose them: server/ never imports a worker
  // process, the CLI, scripts or benchmarks (tests may drive a worker), and the job loop
  // (workers/jobs) never imports the handlers it runs (their registry is workers/job-worker/).
  {
    files: ['server/**/*.{ts,tsx}', 'workers/jobs/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'import/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: './server',
              from: ['./workers', './cli', './scripts', './bench', './app', './components'],
              message: 'server/ is below the processes (docs/architecture.md): move what both need into server/, lib/ or core/',
            },
            {
              target: './workers/jobs',
              from: ['./workers', './cli', './bench'],
              except: ['./jobs'],
              message: 'the job loop runs handlers it is given: register them in workers/job-worker/registry.ts',
            },
          ],
        },
      ],
    },
  },
  {
    // The UI talks to the platform through tRPC only: `import type { AppRouter }` is fine, a
    // value import would bundle server code (and the database) into the browser. Route
    // handlers under app/api/ are server code.
    files: ['app/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}'],
    ignores: ['app/api/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(@/|(\\.\\./)+)server(/|$)',
              allowTypeImports: true,
              message: 'the UI imports server/ only as `import type` (e.g. AppRouter): call the API through tRPC',
            },
            {
              regex: '^(@/|(\\.\\./)+)(db|lib|workers|cli|scripts|bench)(/|$)',
              message: 'the UI imports only core/, components/ and `import type` from server/: call the API through tRPC',
            },
          ],
        },
      ],
    },
  },
  // Type-aware rules: a promise nobody awaits loses its error (an unhandled rejection kills a
  // worker), and a switch over a union must handle every member when the union grows.
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
];

export default config;
