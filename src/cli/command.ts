// What every `patchbay <command>` gets and returns, and the argument parsing they share.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { RemoteHub } from '../api/remote.ts';
import type { HubOptions } from '../options.ts';

export interface Output {
  write(text: string): unknown;
  /** A terminal: colour and screen clearing are for people, not for pipes. */
  isTTY?: boolean;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  /** Relative paths in arguments (`--project`, `--contents-file`) start here. */
  cwd: string;
  /** Resolves with the signal's name when the person interrupts a command that runs until then. */
  interrupted?(): Promise<string>;
  /** All of standard input, for arguments given as `-` (at most `maxBytes`). */
  readStdin?(maxBytes: number): Promise<string>;
}

export interface CommandContext {
  io: CliIo;
  options: HubOptions;
  /** The running daemon's HubApi; main closes the connection when the command ends. */
  connect(): Promise<RemoteHub>;
  now(): number;
  /** See CliIo.interrupted; by default Ctrl-C or SIGTERM. */
  interrupted(): Promise<string>;
}

export interface Command {
  summary: string;
  /** Shown by `--help` (stdout) and after a usage error (stderr). */
  usage: string;
  /** `start` parses its own arguments, `--help` included. */
  ownHelp?: boolean;
  run(args: string[], ctx: CommandContext): Promise<number>;
}

/**
 * A command whose module loads only when it runs: `--help` and the other commands do not pay
 * for what it imports (the daemon's: the control server, the hub).
 */
export interface LazyCommand {
  summary: string;
  load(): Promise<Omit<Command, 'summary'>>;
}

/** The command line is wrong: print the message and the usage, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/**
 * The command line's problem in our words (Node's parser explains itself in its own terms,
 * `'--bogus'. To specify a positional argument starting with a '-'…`), or null.
 */
function optionProblem(args: string[], options: OptionsConfig): string | null {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (option === undefined) {
      const known = Object.keys(options).map((name) => `--${name}`);
      return `unknown option ${token.rawName}${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`;
    }
    if (option.type === 'boolean' && token.value !== undefined) return `${token.rawName} takes no value`;
    if (option.type === 'string') {
      if (token.value === undefined) return `${token.rawName} needs a value`;
      if (!token.inlineValue && token.value.startsWith('-')) {
        return `${token.rawName} needs a value (write ${token.rawName}=${token.value} if "${token.value}" is meant as one)`;
      }
    }
  }
  return null;
}

export function parse<const O extends OptionsConfig>(args: string[], options: O) {
  const problem = optionProblem(args, options);
  if (problem !== null) throw new UsageError(problem);
  return parseArgs({ args, options, allowPositionals: true, strict: true });
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
