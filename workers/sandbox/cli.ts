import type { Command } from '@/server/cli/args';

// Filled in by the sandbox library (issue 3).
export const sandboxCommands: Command[] = [];
export const envCommands: Command[] = [];
