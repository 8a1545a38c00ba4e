// Runs a double as its own process (fake-editor.ts, fake-pi.ts, fake-claude.ts CLI entries),
// for kill -9 and multi-process tests. The child is owned by the returned PeerProcess.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { START_MS, waitFor, withTimeout, type WaitOptions, WAIT_MS } from './wait.ts';

export type PeerKind = 'editor' | 'pi' | 'claude';

const SCRIPTS: Record<PeerKind, string> = {
  editor: fileURLToPath(new URL('./fake-editor.ts', import.meta.url)),
  pi: fileURLToPath(new URL('./fake-pi.ts', import.meta.url)),
  claude: fileURLToPath(new URL('./fake-claude.ts', import.meta.url)),
};
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ReadyLine {
  ready: true;
  port: number;
  pid: number;
  lockfile: string | null;
  [key: string]: unknown;
}

export type OutputLine = Record<string, unknown>;

export interface PeerProcess {
  readonly kind: PeerKind;
  readonly child: ChildProcess;
  readonly ready: ReadyLine;
  /** Every stdout line after the ready line, parsed. */
  readonly lines: OutputLine[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** Writes one command line to stdin. */
  send(command: Record<string, unknown>): void;
  /** Sends `command` with a fresh tag and resolves with its result (rejects on its error line). */
  command(command: Record<string, unknown>, opts?: WaitOptions): Promise<unknown>;
  waitForLine(pred: (line: OutputLine) => boolean, opts?: WaitOptions): Promise<OutputLine>;
  /** kill -9 (by default) and wait for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** The `stop` command, then waits for the exit (SIGKILL after 3 s). Safe to call twice. */
  stop(): Promise<void>;
}

let nextTag = 1;

/** tsx by absolute URL, so a peer can run in any working directory (an agent's cwd is its project). */
export const TSX_LOADER = import.meta.resolve('tsx');

export async function spawnPeer(
  kind: PeerKind,
  args: string[],
  /** `prefix`: what runs node (e.g. `ip netns exec <ns> runuser -u <user> --`, for a peer on another "machine"). */
  opts: { readyTimeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string; prefix?: string[] } = {},
): Promise<PeerProcess> {
  const argv = [...(opts.prefix ?? []), process.execPath, '--import', TSX_LOADER, SCRIPTS[kind], ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // The peer may die before reading everything we write; that shows up in `exited`.
  child.stdin!.on('error', () => {});
  const lines: OutputLine[] = [];
  let ready: ReadyLine | null = null;
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let line: OutputLine;
    try {
      line = JSON.parse(text) as OutputLine;
    } catch {
      line = { event: 'unparsed', text };
    }
    if (!ready && line.ready === true) ready = line as ReadyLine;
    else lines.push(line);
  });
  const name = `fake ${kind} (pid ${child.pid})`;
  const dead = exited.then(({ code, signal }) => {
    throw new Error(`${name} exited (code ${code}, signal ${signal}) before it was ready: ${stderr.trim()}`);
  });
  dead.catch(() => {});
  try {
    await Promise.race([waitFor(() => ready, { timeoutMs: opts.readyTimeoutMs ?? START_MS, message: () => `${name} ready line; stderr: ${stderr}` }), dead]);
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw err;
  }

  let stopping: Promise<void> | null = null;
  const peer: PeerProcess = {
    kind,
    child,
    ready: ready!,
    lines,
    exited,
    stderr: () => stderr,
    send(command) {
      child.stdin!.write(JSON.stringify(command) + '\n');
    },
    async command(command, waitOpts = {}) {
      const tag = `t${nextTag++}`;
      peer.send({ ...command, tag });
      const line = await peer.waitForLine((l) => l.tag === tag && (l.event === 'result' || l.event === 'error'), {
        message: `answer to ${JSON.stringify(command)} from ${name}`,
        ...waitOpts,
      });
      if (line.event === 'error') throw new Error(`${name}: ${String(line.message)}`);
      return line.result;
    },
    waitForLine(pred, waitOpts = {}) {
      return waitFor(() => lines.find(pred), { message: `a matching line from ${name}`, ...waitOpts });
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        peer.send({ cmd: 'stop' });
        try {
          await withTimeout(exited, WAIT_MS, `${name} to stop`);
        } catch {
          child.kill('SIGKILL');
          await exited;
        }
      })();
      return stopping;
    },
  };
  return peer;
}
