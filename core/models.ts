import { z } from 'zod';

/**
 * Registered Hugging Face models (issue 15): the one definition of a model's name and of the
 * file manifest its row records. Each file is an artifact in the artifact store, named by the
 * sha256 of its bytes, so any host fetches the model by hash. Imports nothing from the project.
 */

export const MODEL_NAME_RULE = 'model names are 1-100 characters of letters, digits, ".", "_" and "-", starting with a letter or digit (e.g. "stories260K")';

export const modelName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, MODEL_NAME_RULE);

/** A file of a model directory: its name in the directory, and its artifact. */
export const modelFile = z.object({
  /** a plain file name (no directories): what it is called in a Hugging Face directory */
  path: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a model file is a plain file name'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
});
export type ModelFile = z.infer<typeof modelFile>;

/**
 * The files of a Hugging Face directory a registered model keeps. Anything else in the
 * directory (READMEs, PyTorch .bin weights, images) is left out of the registry.
 */
export const MODEL_METADATA_FILES = [
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'chat_template.jinja',
  'tokenizer.model',
] as const;

/**
 * The most bytes each metadata file may have before it is read (real ones: config.json a few
 * KiB, Qwen/Llama 3 tokenizer.json 7-17 MiB, Gemma 3's 33 MiB). A bigger one is refused, not
 * read: a link to /dev/zero or a huge file must not fill the reader's memory.
 */
export const MODEL_METADATA_MAX_BYTES: Record<(typeof MODEL_METADATA_FILES)[number] | 'model.safetensors.index.json', number> = {
  'config.json': 1024 * 1024,
  'generation_config.json': 1024 * 1024,
  'tokenizer.json': 64 * 1024 * 1024,
  'tokenizer_config.json': 16 * 1024 * 1024,
  'special_tokens_map.json': 1024 * 1024,
  'added_tokens.json': 16 * 1024 * 1024,
  'chat_template.jinja': 1024 * 1024,
  'tokenizer.model': 64 * 1024 * 1024,
  'model.safetensors.index.json': 16 * 1024 * 1024,
};

/** Weight files: one `model.safetensors`, or the index and its `model-*.safetensors` shards. */
export const isWeightFile = (name: string) => name === 'model.safetensors' || name === 'model.safetensors.index.json' || /^model-.*\.safetensors$/.test(name);

/** Projections LoRA can adapt, by PEFT's module names (the run config and the trainer share them). */
export const LORA_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraModule = (typeof LORA_MODULES)[number];

/**
 * What a Hugging Face model's matrix products compute in: float32, or fp16 / bf16 operands
 * over float32 master weights (mixed precision; lib/policy/onnx/mixed-precision.ts).
 */
export const PRECISIONS = ['fp32', 'fp16', 'bf16'] as const;
export type Precision = (typeof PRECISIONS)[number];

export const EXPORT_FORMATS = ['hf', 'peft'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
