import type { Command } from './command.js';
import { verdictCommand } from './verdict-command.js';

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [verdictCommand];
