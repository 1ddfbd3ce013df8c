import { detectToolCallFormat, type ToolCallFormatName } from '@/core/tool-call-formats';
import type { ToolCallFormat } from './call-format';
import { hermesFormat } from './hermes';
import { llamaJsonFormat } from './llama-json';
import { mistralFormat } from './mistral';
import { xmlFunctionFormat } from './xml-function';

const FORMATS: Record<ToolCallFormatName, ToolCallFormat> = {
  hermes: hermesFormat,
  'llama-json': llamaJsonFormat,
  'xml-function': xmlFunctionFormat,
  mistral: mistralFormat,
};

export function toolCallFormat(name: ToolCallFormatName): ToolCallFormat {
  return FORMATS[name];
}

/** The format a model uses: the one set for it, else what its chat template renders. */
export function toolCallFormatFor(o: { format?: ToolCallFormatName; chatTemplate?: string }): ToolCallFormat {
  return FORMATS[o.format ?? detectToolCallFormat(o.chatTemplate)];
}
