import path from 'node:path';

/**
 * Where this folder's plain-JS helpers and the project's packages are, for eval'd worker
 * threads that `require` them (isolated-inspection.ts, bounded-template.ts). The module's own
 * location where it is known (tsx: the CLI from any directory, workers, tests); in Next's
 * server build import.meta.dirname is undefined and the server runs from the repository root.
 */
const here = (import.meta.dirname as string | undefined) ?? path.resolve('lib', 'policy', 'hf');

/** template-budget.cjs, the jinja budget both the workers and the threads use. */
export const TEMPLATE_BUDGET_MODULE = path.join(here, 'template-budget.cjs');

/** A file to anchor `createRequire` at, so packages resolve from the project's node_modules. */
export const PACKAGE_ANCHOR = path.resolve(here, '..', '..', '..', 'package.json');
