import type { ToolCallFormat } from '../tools/call-formats/call-format';

/**
 * The system prompt of an episode that sets none, telling the model how its family writes
 * tool calls. Its own module: exports re-derive it without loading the episode runner.
 */
export function defaultSystemPrompt(format: ToolCallFormat): string {
  return (
    `You are a software engineer working in a repository (the current directory). Act through tools: ${format.instructions}. ` +
    'Read the code, make the change the task asks for, run the tests, and call submit when you are done.'
  );
}
