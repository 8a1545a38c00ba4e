// The stdin/stdout protocol shared by the doubles' CLI entries (see the top of each fake-*.ts).
// stdout: one JSON object per line — first the ready line, then events and command results.
// stdin: one JSON command per line, `{"cmd":"…","tag"?:…,…}`; commands run concurrently, so a
// blocking one (an openDiff) does not hold up the next. EOF on stdin, SIGTERM or SIGINT stop
// the peer gracefully and exit.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

export function isMain(importMetaUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && importMetaUrl === pathToFileURL(entry).href;
}

export function emit(line: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(line) + '\n');
}

export interface Command {
  cmd: string;
  /** Echoed in the result line so a test can match answers to commands. */
  tag?: unknown;
  [key: string]: unknown;
}

export type CommandHandlers = Record<string, (command: Command) => unknown | Promise<unknown>>;

/**
 * Reads commands from stdin and emits `{event:"result",cmd,tag,result}` or
 * `{event:"error",cmd,tag,message}` for each. `stop` ends the process after `shutdown`.
 */
export function serveCommands(handlers: CommandHandlers, shutdown: () => Promise<void>): void {
  let stopping = false;
  const stop = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      await shutdown();
    } catch (err) {
      emit({ event: 'error', cmd: 'stop', message: `shutdown after ${why} failed: ${(err as Error).message}` });
      process.exitCode = 1;
    }
    emit({ event: 'stopped', why });
    process.exit();
  };
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let command: Command;
    try {
      command = JSON.parse(line) as Command;
      if (typeof command.cmd !== 'string') throw new Error('"cmd" must be a string');
    } catch (err) {
      emit({ event: 'error', cmd: null, message: `bad command line ${JSON.stringify(line)}: ${(err as Error).message}` });
      return;
    }
    if (command.cmd === 'stop') {
      void stop('stop command');
      return;
    }
    const handler = handlers[command.cmd];
    if (!handler) {
      emit({ event: 'error', cmd: command.cmd, tag: command.tag, message: `unknown command; known: stop, ${Object.keys(handlers).join(', ')}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(command))
      .then(
        (result) => emit({ event: 'result', cmd: command.cmd, tag: command.tag, result: result ?? null }),
        (err: Error) => emit({ event: 'error', cmd: command.cmd, tag: command.tag, message: err.message }),
      );
  });
  lines.on('close', () => void stop('stdin closed'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/** A required string field of a command. */
export function field(command: Command, name: string): string {
  const value = command[name];
  if (typeof value !== 'string') throw new Error(`${command.cmd}: "${name}" must be a string`);
  return value;
}

/** Fails the process with a message on stderr when the peer cannot start. */
export function startupFailed(err: unknown): never {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
}
