import type { Command } from './command.js';
import { hashCommand } from './hash-command.js';
import { initCommand } from './init-command.js';
import { policyCommand } from './policy-command.js';
import { runCommand } from './run-command.js';
import { verdictCommand } from './verdict-command.js';

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  verdictCommand,
  hashCommand,
  initCommand,
  policyCommand,
  runCommand,
];
