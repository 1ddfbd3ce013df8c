import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkspaceFiles } from '@/core/repo-tasks';

/**
 * TypeScript for node:test on Node 20, which cannot load `.ts` by itself: module hooks
 * (grader-hooks.mjs, registered by ts-register.mjs) that strip types with amaro, Node's own type
 * stripper. Both the grader and the agent's episode sandbox get these files, outside the
 * workspace, when a task holds TypeScript.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const amaroDir = path.dirname(createRequire(import.meta.url).resolve('amaro'));

/** Paths relative to the directory the hooks are put in; `ts-register.mjs` is the one to `--import`. */
export const TS_HOOK_FILES: Readonly<Record<string, Buffer>> = {
  'grader-hooks.mjs': readFileSync(path.join(here, 'grader-hooks.mjs')),
  'ts-register.mjs': readFileSync(path.join(here, 'ts-register.mjs')),
  'amaro/index.js': readFileSync(path.join(amaroDir, 'index.js')),
  'amaro/internal.js': readFileSync(path.join(amaroDir, 'internal.js')),
};

/** Where an episode's sandbox gets the hooks (the agent's `node` loads them through NODE_OPTIONS). */
export const EPISODE_TS_HOOKS_DIR = '/tmp/.crucible-ts';

const isTypeScript = (p: string) => /\.m?ts$/.test(p) && !p.endsWith('.d.ts');

/** Whether a JavaScript task's files hold TypeScript to load. */
export const hasTypeScript = (files: WorkspaceFiles) => Object.keys(files).some(isTypeScript);
