import path from 'node:path';

/**
 * A real pretrained model for tests: Karpathy's llama2.c stories260K (MIT) in Hugging Face
 * Llama format, about 1 MB, vendored under test/models so CI needs nothing outside the clone
 * (provenance and shape: test/models/stories260K-hf/README.md).
 */
export const STORIES260K_DIR = path.resolve(import.meta.dirname, 'models/stories260K-hf');
