// One core as the keeper runs it: a child process (`patchbay __core`) on an IPC channel, its
// stderr passed on to the keeper's (the daemon's log) with its last lines kept for a crash
// report. It says `hello` once its code is loaded; the keeper answers with `init`.
import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { CORE_COMMAND, type CoreMessage, type KeeperMessage } from './protocol.ts';

/** How the keeper starts a core: the program that runs `patchbay` and its arguments before the subcommand. */
export interface CoreEntry {
  /** The script fork() runs (`process.argv[1]`: the `patchbay` that started the daemon). */
  script: string;
  /** Node's own flags for it (default: the keeper's, e.g. a TypeScript loader in tests). */
  execArgv?: string[];
  env?: NodeJS.ProcessEnv;
}

const STDERR_LINES = 20;

/**
 * A floor (MB) under the limit V8 sets the core's old generation, unless the user set one. V8
 * counts the external memory allocated since its last full collection against that limit, and
 * every 10 MiB frame an openDiff arrives or leaves in is such memory. With the limit V8 picks for
 * the core's ~12 MB heap (~27 MB), ~16 MB of frames start incremental marking: two to three full
 * collections per 10 MiB diff, ~40 ms of the core's CPU per diff. With 64 MB it is one every few
 * diffs, as for a relay whose heap is under V8's 8 MB activation threshold; the heap itself stays
 * ~12 MB, and what a burst of big diffs leaves is collected once the relay is idle
 * (lifecycle/release-memory.ts).
 */
export const CORE_OLD_SPACE_MB = 64;

/**
 * V8's field-type tracking, off in the core. With it on, optimized code relies on the class of
 * what an object's field holds; a big diff's objects (frames read lazily, held diffs, the inbox's
 * records) die in the collections after it, their maps with them, and the next diff makes them
 * anew, so the relay's call path is deoptimized and compiled again after every round of diffs
 * (20–58 ms of TurboFan on two cores while getDiagnostics round trips wait). Off, that happens
 * once, after the first diffs (7.5–9.6 ms of TurboFan in the round after against 20–58, the README
 * says how it was measured); a call costs about the same (A/B of 8 rounds of 3,000 calls each
 * way: CPU +2–4 %, within that harness's noise).
 *
 * V8's interrupt budget, a quarter of its default (67,584): how much bytecode a function runs
 * before V8 weighs optimizing it. A getDiagnostics call runs through some forty functions of the
 * relay and of Node's streams; in a fresh core, and again after the first diffs deoptimize them,
 * they ran unoptimized for hundreds of calls (the last optimized ~0.9 s into the round after the
 * first diffs), and the slowest of those calls were Patchbay's p99. With a quarter they are
 * optimized four times sooner (bench, latency phase right after start, five runs each way
 * alternating: p99 1.11–1.51× the bare relay's, median 1.24×, against 1.35–1.98×, median 1.74×;
 * p50 the same).
 */
export const CORE_V8_FLAGS = ['--no-track-field-types', '--interrupt-budget=16896'];

/** The core's Node flags: the keeper's own (or the entry's), after the core's defaults that neither they nor NODE_OPTIONS set. */
export function coreExecArgv(execArgv: readonly string[], nodeOptions = ''): string[] {
  const theirs = [...execArgv, ...nodeOptions.split(/\s+/)].map(flagName);
  const defaults = [`--initial-old-space-size=${CORE_OLD_SPACE_MB}`, ...CORE_V8_FLAGS].filter((flag) => !theirs.includes(flagName(flag)));
  return [...defaults, ...execArgv];
}

/** A Node/V8 flag's name as V8 reads it: `-` and `_` alike, a `no-` prefix the same flag, the value dropped. */
function flagName(flag: string): string {
  return flag.replace(/=.*$/, '').replace(/_/g, '-').replace(/^--no-/, '--');
}

export class CoreProcess {
  private readonly child: ChildProcess;
  private readonly tail: string[] = [];
  private partial = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Set once it said hello (its code loaded). */
  hello: Promise<void>;

  constructor(
    entry: CoreEntry,
    onMessage: (core: CoreProcess, msg: CoreMessage) => void,
    private readonly stderr: (text: string) => void,
  ) {
    this.child = fork(entry.script, [CORE_COMMAND], {
      execArgv: coreExecArgv(entry.execArgv ?? process.execArgv, (entry.env ?? process.env).NODE_OPTIONS),
      env: entry.env ?? process.env,
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'json',
    });
    // `close`, not `exit`: only then has every message it sent been read (its hand-over's last words come just before it exits).
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => resolve({ code, signal })));
    let said!: () => void;
    this.hello = new Promise((resolve) => (said = resolve));
    this.child.on('message', (msg: CoreMessage) => {
      if (msg.t === 'hello') said();
      onMessage(this, msg);
    });
    // A core that died mid-send leaves EPIPE on the channel: its exit says what happened.
    this.child.on('error', () => {});
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (text: string) => this.noteStderr(text));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && this.child.connected;
  }

  /** Its last lines on stderr (for the crash report). */
  lastLines(): string[] {
    return [...this.tail, ...(this.partial.trim() ? [this.partial.trim()] : [])];
  }

  send(msg: KeeperMessage, socket?: Socket, keepOpen = true): Promise<boolean> {
    if (!this.alive) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (err: Error | null): void => resolve(err === null);
      try {
        if (socket) this.child.send(msg, socket, { keepOpen }, done);
        else this.child.send(msg, done);
      } catch {
        resolve(false);
      }
    });
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  private noteStderr(text: string): void {
    this.stderr(text);
    const lines = (this.partial + text).split('\n');
    this.partial = (lines.pop() ?? '').slice(-4096);
    for (const line of lines) {
      if (line.trim() === '') continue;
      this.tail.push(line.trimEnd());
      if (this.tail.length > STDERR_LINES) this.tail.shift();
    }
  }
}
