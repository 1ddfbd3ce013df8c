import { z } from 'zod';
import type { AgentToolName } from '@/core/repo-tasks';

/**
 * The agent's tools, one definition each: the zod schema validates a call's arguments and
 * the same schema, through zod 4's `z.toJSONSchema`, is the OpenAI-style tool schema the
 * policy sees (in the system prompt or the chat template's `tools`).
 */
export const toolArgs = {
  bash: z
    .object({
      command: z.string().min(1).max(100_000).describe('a shell command, run with `sh -c` in the workspace directory'),
      timeout_s: z.number().int().min(1).max(600).optional().describe('wall-clock limit in seconds (default: the episode setting)'),
    })
    .strict(),
  read_file: z
    .object({
      path: z.string().min(1).max(1000).describe('file path, relative to the workspace'),
      start_line: z.number().int().min(1).max(10_000_000).optional().describe('first line to show (1-based)'),
      end_line: z.number().int().min(1).max(10_000_000).optional().describe('last line to show (inclusive)'),
    })
    .strict(),
  write_file: z
    .object({
      path: z.string().min(1).max(1000).describe('file path, relative to the workspace; missing directories are created'),
      content: z.string().max(10_000_000).describe('the whole new content of the file'),
    })
    .strict(),
  str_replace: z
    .object({
      path: z.string().min(1).max(1000).describe('file path, relative to the workspace'),
      old_str: z.string().min(1).max(1_000_000).describe('text that occurs exactly once in the file'),
      new_str: z.string().max(1_000_000).describe('its replacement'),
    })
    .strict(),
  submit: z.object({}).strict(),
} satisfies Record<AgentToolName, z.ZodType>;

export type ToolArgs = { [K in AgentToolName]: z.output<(typeof toolArgs)[K]> };

const descriptions: Record<AgentToolName, string> = {
  bash: 'Run a shell command in the workspace. Output (stdout and stderr) is capped; a command past its time limit is killed.',
  read_file: 'Read a text file of the workspace, optionally only a range of lines.',
  write_file: 'Create or overwrite a file in the workspace.',
  str_replace: 'Replace an exact piece of text in a file; old_str must occur exactly once.',
  submit: 'Finish the episode: the workspace as it is now is graded.',
};

export type ToolSchema = {
  type: 'function';
  function: { name: AgentToolName; description: string; parameters: Record<string, unknown> };
};

/** OpenAI-style schemas for `names` (default: every tool), in the given order. */
export function toolSchemas(names: readonly AgentToolName[] = Object.keys(toolArgs) as AgentToolName[]): ToolSchema[] {
  return names.map((name) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(toolArgs[name]) as Record<string, unknown>;
    return { type: 'function', function: { name, description: descriptions[name], parameters } };
  });
}

export function isToolName(name: string): name is AgentToolName {
  return Object.hasOwn(toolArgs, name);
}
