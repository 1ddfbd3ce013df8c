import { settings } from '@/core/settings';
import { configureOnnxRuntime } from '@/lib/policy/onnx-session';

// Setup file of the integration, system and exclusive projects. Vitest runs as many forks as
// there are cores here, and each busy fork would otherwise give every onnxruntime session all
// the cores: oversubscribed (and spinning) threads made the two learning runs take twice as long
// side by side. vitest.config.ts sets CRUCIBLE_POLICY_THREADS (cores / forks) for the forks and
// the processes they start; this applies it to the sessions tests create in process.
configureOnnxRuntime(settings());
