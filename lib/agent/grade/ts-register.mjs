// Registers the grader's module hooks (grader-hooks.mjs) for TypeScript alone, no pinned files:
// what the agent's node gets in its episode sandbox (NODE_OPTIONS=--import=…).
import { register } from 'node:module';

register('./grader-hooks.mjs', import.meta.url, { data: { typescript: true, pinned: [] } });
