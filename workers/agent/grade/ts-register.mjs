// Registers the grader's TypeScript hooks (ts-loader.mjs), loaded with --import after the reporter.
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
