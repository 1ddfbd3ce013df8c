import os from 'node:os';

/** Forks Vitest runs at once (vitest.config.ts): two cores here. */
export const TEST_WORKERS = 2;

/** Each fork's share of the cores, for its onnxruntime sessions and the workers a test starts. */
export const threadsPerFork = () => Math.max(1, Math.floor(os.availableParallelism() / TEST_WORKERS));
