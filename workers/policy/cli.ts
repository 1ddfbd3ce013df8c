import type { Command } from '@/server/cli/args';

// Filled in by the policy library (issue 4).
export const commands: Command[] = [];
