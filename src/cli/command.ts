// What every `patchbay <command>` gets and returns, and the argument parsing they share.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { HubApi } from '../api/types.ts';
import type { HubOptions } from '../options.ts';

export interface Output {
  write(text: string): unknown;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  /** Relative paths in arguments (`--project`, `--contents-file`) start here. */
  cwd: string;
}

export interface CommandContext {
  io: CliIo;
  options: HubOptions;
  /** The running daemon's HubApi; main closes the connection when the command ends. */
  connect(): Promise<HubApi>;
  now(): number;
}

export interface Command {
  summary: string;
  /** Shown by `--help` (stdout) and after a usage error (stderr). */
  usage: string;
  /** `start` parses its own arguments, `--help` included. */
  ownHelp?: boolean;
  run(args: string[], ctx: CommandContext): Promise<number>;
}

/** The command line is wrong: print the message and the usage, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export function parse<const O extends OptionsConfig>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Exactly `names.length` positionals, the last `optional` of which may be missing. */
export function positionals(given: string[], names: string[], optional = 0): string[] {
  const min = names.length - optional;
  if (given.length < min) throw new UsageError(`missing ${names.slice(given.length, min).map((n) => `<${n}>`).join(' ')}`);
  if (given.length > names.length) throw new UsageError(`unexpected argument "${given[names.length]}"`);
  return given;
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
