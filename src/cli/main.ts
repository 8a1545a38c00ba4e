// `patchbay <command>`: dispatch, exit codes and error reporting. Besides src/options.ts this is
// the only module that reads process.env; everything below gets it through `io.env`.
//   0 done · 1 failed (Patchbay said no, or is not running) · 2 the command line is wrong
// Start-up time matters (scripts and prompts call `patchbay status` often): what this module
// and the command modules import statically is loaded by every call, so the socket client,
// the daemon and the heavier libraries are imported where a command needs them.
import type { RemoteHub } from '../api/remote.ts';
import { outliveOutputReaders, processStopSignals } from '../lifecycle/stop-signals.ts';
import { resolveOptions } from '../options.ts';
import { CORE_COMMAND } from '../keeper/protocol.ts';
import { UsageError, type CliIo, type Command, type CommandContext, type LazyCommand } from './command.ts';
import { autoconnect, bind, diffs, dismiss, models, open, pause, resume, reviewMode, settings, status, suggestionModel, traffic } from './commands.ts';
import type { DaemonDeps } from './daemon.ts';
import { events } from './events.ts';
import { restore } from './restore.ts';
import { restart } from './restart.ts';

/** conf's atomic writer (when-exit) re-raises a signal it caught, at once: that is no second request. */
const SIGNAL_ECHO_MS = 1000;

/** Ctrl-C once stops cleanly; a second time gives up waiting. */
function processStopRequested(): Promise<string> {
  return new Promise((resolve) => {
    let firstAt: number | null = null;
    const onSignal = (signal: NodeJS.Signals) => {
      if (firstAt === null) {
        firstAt = Date.now();
        resolve(signal);
      } else if (Date.now() - firstAt > SIGNAL_ECHO_MS) {
        process.stderr.write('patchbay: stopping without cleaning up\n');
        process.exit(130);
      }
    };
    for (const signal of processStopSignals()) process.on(signal, onSignal);
  });
}

const defaultDaemonDeps: DaemonDeps = {
  // The core is this same `patchbay` (its script and Node flags) with the internal subcommand.
  coreEntry: () => ({ script: process.argv[1]!, execArgv: process.execArgv }),
  stopRequested: processStopRequested,
};

function commands(daemonDeps: DaemonDeps): Record<string, Command | LazyCommand> {
  return {
    daemon: {
      summary: 'Run Patchbay headless: the door for agents and the control server',
      load: async () => {
        const { daemonUsage, runDaemon } = await import('./daemon.ts');
        return { usage: daemonUsage, run: (args, ctx) => runDaemon(args, ctx, daemonDeps) };
      },
    },
    start: {
      summary: 'Start the desktop app, or the daemon where Electron is missing',
      usage: 'Usage: patchbay start',
      ownHelp: true,
      run: async (args, ctx) => (await import('./start.ts')).runStart(args, ctx.io.env),
    },
    status,
    restart,
    dismiss,
    events,
    bind,
    restore,
    diffs,
    models,
    'suggestion-model': suggestionModel,
    autoconnect,
    'review-mode': reviewMode,
    settings,
    pi: {
      summary: 'Hosted pi sessions: start, prompt, resume, fork, and pi’s own commands',
      load: async () => (await import('./pi.ts')).pi,
    },
    remote: {
      summary: 'Remotes (a dev box, a container, a VM) whose agents reach Patchbay over SSH',
      load: async () => (await import('./remote.ts')).remote,
    },
    traffic,
    pause,
    resume,
    open,
  };
}

function usage(table: Record<string, Command | LazyCommand>): string {
  const width = Math.max(...Object.keys(table).map((name) => name.length));
  const lines = Object.entries(table).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `Usage: patchbay <command> [options]

Commands:
${lines.join('\n')}

Run \`patchbay <command> --help\` for a command's options.
`;
}

/** Commands that hold what others rely on (the door, pending edits, moved lockfiles). */
const OUTLIVE_THEIR_READER = new Set(['daemon', 'start', CORE_COMMAND]);

function processIo(command: string | undefined): CliIo {
  if (command !== undefined && OUTLIVE_THEIR_READER.has(command)) {
    // `patchbay daemon | tee log` and Ctrl-C: tee is gone before the daemon says "stopping".
    // A lost reader (EPIPE, or EIO from a closed terminal) costs the log, never the clean stop
    // that rejects pending edits (pi-ide writes them unreviewed when its link drops) and puts
    // the editors' lockfiles back.
    outliveOutputReaders();
  } else {
    // A reader that went away (`patchbay events --json | head -1`) ends the command, quietly.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(0);
    });
  }
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), readStdin: readProcessStdin };
}

/** Standard input to its end, refusing more than `maxBytes` (a prompt piped in, `pi prompt <id> -`). */
async function readProcessStdin(maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new Error(`standard input is larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function main(argv: string[], io: CliIo = processIo(argv[0]), daemonDeps: Partial<DaemonDeps> = {}): Promise<number> {
  const table = commands({ ...defaultDaemonDeps, ...daemonDeps });
  const [name, ...args] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage(table));
    return 0;
  }
  const options = resolveOptions(io.env);
  if (name === CORE_COMMAND) return (await import('../core/main.ts')).runCore(options);
  if (name === '--version' || name === 'version') {
    io.stdout.write(`${options.version}\n`);
    return 0;
  }
  const entry = name === undefined ? undefined : Object.hasOwn(table, name) ? table[name] : undefined;
  if (entry === undefined) {
    io.stderr.write(`${name === undefined ? '' : `patchbay: unknown command "${name}"\n\n`}${usage(table)}`);
    return 2;
  }
  const command = 'load' in entry ? await entry.load() : entry;
  if (!command.ownHelp && (args.includes('--help') || args.includes('-h'))) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }

  let connection = null as Promise<RemoteHub> | null;
  const ctx: CommandContext = {
    io,
    options,
    now: Date.now,
    connect: () => (connection ??= import('../web/control-client.ts').then((client) => client.connectControl(options.home))),
    interrupted: io.interrupted ?? processStopRequested,
  };
  try {
    return await command.run(args, ctx);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`patchbay ${name}: ${err.message}\n${command.usage}\n`);
      return 2;
    }
    io.stderr.write(`patchbay: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    // A failed connect has nothing to close; its error was reported above.
    const hub = await connection?.catch(() => null);
    hub?.close();
  }
}
