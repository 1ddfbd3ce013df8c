import { configureOnnxRuntime } from '@/lib/policy/onnx-session';
import { threadsPerFork } from './fork-threads';

// Setup file of the integration, system and exclusive projects. Vitest runs as many forks as
// there are cores here, and each busy fork would otherwise give every onnxruntime session all
// the cores: oversubscribed (and spinning) threads made the two learning runs take twice as long
// side by side. vitest.config.ts sets CRUCIBLE_POLICY_THREADS for the processes tests start;
// this applies the same share to the sessions tests create in process. It must not call
// settings(): that caches the environment before a test file stubs it (vi.stubEnv).
configureOnnxRuntime({ CRUCIBLE_POLICY_ORT_LOG: 'fatal', CRUCIBLE_POLICY_THREADS: threadsPerFork() });
