import type { Command } from './args';
export const commands: Command[] = [];
