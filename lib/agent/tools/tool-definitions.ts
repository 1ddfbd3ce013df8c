import { z } from 'zod';
import { DEFAULT_AGENT_TOOLS, type AgentToolName } from '@/core/repo-tasks';

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
  view: z
    .object({
      path: z.string().min(1).max(1000).describe('a file or directory, relative to the workspace ("." for its root)'),
      // not an array `view_range` as in other scaffolds: some chat templates cannot render array parameters (Hermes 3's
      // type names); a call that sends view_range [a, b] is taken as start_line a, end_line b (execute-tool.ts)
      start_line: z.number().int().min(1).max(10_000_000).optional().describe('for a file: the first line to show (1-based)'),
      end_line: z.number().int().min(-1).max(10_000_000).optional().describe('for a file: the last line to show (inclusive; -1: the end)'),
    })
    .strict(),
  insert: z
    .object({
      path: z.string().min(1).max(1000).describe('file path, relative to the workspace'),
      insert_line: z.number().int().min(0).max(10_000_000).describe('the line after which the text goes (0: at the top)'),
      new_str: z.string().max(1_000_000).describe('the text to insert'),
    })
    .strict(),
  undo_edit: z.object({ path: z.string().min(1).max(1000).describe('file path, relative to the workspace') }).strict(),
  think: z.object({ thought: z.string().max(100_000).describe('your reasoning') }).strict(),
  submit: z.object({}).strict(),
} satisfies Record<AgentToolName, z.ZodType>;

export type ToolArgs = { [K in AgentToolName]: z.output<(typeof toolArgs)[K]> };

const descriptions: Record<AgentToolName, string> = {
  bash: 'Run a shell command in the workspace. Output (stdout and stderr) is capped; a command past its time limit is killed.',
  read_file: 'Read a text file of the workspace, optionally only a range of lines.',
  write_file: 'Create or overwrite a file in the workspace.',
  str_replace: 'Replace an exact piece of text in a file; old_str must occur exactly once.',
  view: 'Show a file with line numbers (as cat -n), or list a directory two levels deep.',
  insert: 'Insert text after a given line of a file.',
  undo_edit: 'Undo the last edit of a file made in this episode (write_file, str_replace or insert).',
  think: 'Think before acting: nothing is run and nothing changes.',
  submit: 'Finish the episode: the workspace as it is now is graded.',
};

export type ToolSchema = {
  type: 'function';
  function: { name: AgentToolName; description: string; parameters: Record<string, unknown> };
};

/** OpenAI-style schemas for `names` (default: the default tool set, core/repo-tasks.ts), in the given order. */
export function toolSchemas(names: readonly AgentToolName[] = DEFAULT_AGENT_TOOLS): ToolSchema[] {
  return names.map((name) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(toolArgs[name]) as Record<string, unknown>;
    return { type: 'function', function: { name, description: descriptions[name], parameters } };
  });
}

export function isToolName(name: string): name is AgentToolName {
  return Object.hasOwn(toolArgs, name);
}
