// One `pi --mode rpc` child process: commands out with ids, responses matched back to them,
// events and extension UI requests handed to the owner. The client owns the child; `close()`
// asks pi to stop (abort, then EOF on stdin) and escalates to SIGTERM and SIGKILL.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { JsonlDecoder, encodeJsonl } from './jsonl.ts';
import { classifyRecord, type RpcCommand, type RpcEvent, type UiAnswer, type UiRequest } from './protocol.ts';

export interface PiExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** For people: how it ended and pi's last words on stderr. */
  message: string;
}

/** A command that could not be answered because pi is gone (or never started). */
export class PiExitedError extends Error {
  constructor(
    command: string,
    readonly exit: PiExit,
  ) {
    super(`pi ${command}: ${exit.message}`);
    this.name = 'PiExitedError';
  }
}

/** pi answered a command with `success: false`. */
export class PiCommandError extends Error {
  constructor(
    readonly command: string,
    readonly reason: string,
  ) {
    super(`pi ${command}: ${reason}`);
    this.name = 'PiCommandError';
  }
}

export interface PiRpcClientOptions {
  /** The program and its leading arguments: `['pi']`, or `[node, cli.js]`. */
  command: readonly string[];
  /** After `--mode rpc`. */
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  onEvent(event: RpcEvent): void;
  onUiRequest(request: UiRequest): void;
  onExit(exit: PiExit): void;
  log(message: string): void;
  /** Default deadline for a command's response (`request` can override or lift it). */
  commandTimeoutMs: number;
  /** How long each step of `close()` waits before the next, harder one. */
  stopGraceMs: number;
}

interface Pending {
  command: string;
  resolve(data: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | null;
}

const STDERR_LINES = 12;
/** After `exit`, stdout may still hold records; `close` normally follows within a tick. */
const DRAIN_MS = 250;

/**
 * pi 0.99 and later let one signal pass while the shutdown EOF started runs (it may be saving a
 * refreshed token) and exit at once on a second; 0.87 exits on the first. Two signals sent back
 * to back can merge into one pending signal, so the second waits this long.
 */
const SECOND_SIGNAL_MS = 200;

/** Process groups are POSIX; on Windows pi is signalled alone. */
const OWN_GROUP = process.platform !== 'win32';

export class PiRpcClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<string, Pending>();
  private readonly stderrTail: string[] = [];
  private stderrPartial = '';
  private nextId = 1;
  private exitInfo: PiExit | null = null;
  private exitCode: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private spawnError: Error | null = null;
  private drainTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private closing: Promise<PiExit> | null = null;
  private resolveExited!: (exit: PiExit) => void;
  /** Settles once, when pi has exited (or could not start). */
  readonly exited: Promise<PiExit>;

  constructor(private readonly options: PiRpcClientOptions) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    const [program, ...lead] = options.command;
    if (program === undefined) throw new Error('pi command is empty');
    this.child = spawn(program, [...lead, '--mode', 'rpc', ...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so stopping pi also stops the commands its tools started.
      detached: OWN_GROUP,
    });
    const decoder = new JsonlDecoder({
      onRecord: (value) => this.record(value),
      onError: (err) => options.log(`pi ${this.label()}: stdout ${err.message}: ${err.preview}`),
    });
    this.child.stdout.on('data', (chunk: Buffer) => decoder.push(chunk));
    this.child.stdout.on('end', () => decoder.end());
    this.child.stderr.on('data', (chunk: Buffer) => this.stderr(chunk.toString('utf8')));
    // EPIPE after pi died: the exit handler reports it; the write error adds nothing.
    this.child.stdin.on('error', (err) => options.log(`pi ${this.label()}: stdin: ${err.message}`));
    this.child.on('error', (err) => {
      // A failed spawn never emits `exit`; a later error (a failed kill) is only worth a log line.
      if (this.child.pid === undefined) {
        this.spawnError = err;
        this.finish();
      } else {
        options.log(`pi ${this.label()}: ${err.message}`);
      }
    });
    this.child.on('exit', (code, signal) => {
      this.exitCode = { code, signal };
      this.drainTimer = setTimeout(() => this.finish(), DRAIN_MS);
    });
    this.child.on('close', () => this.finish());
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  /** Set once pi has exited. */
  get exit(): PiExit | null {
    return this.exitInfo;
  }

  /**
   * Sends a command and resolves with its response's `data`. `timeoutMs: null` waits as long as
   * pi takes: a `prompt` of an extension command answers only when the command is done.
   */
  request(command: RpcCommand, opts: { timeoutMs?: number | null } = {}): Promise<unknown> {
    return this.start(command, opts).response;
  }

  /**
   * `request`, with the id the command goes out with: pi tags what it streams for a command
   * with that id (`bash_execution_update`).
   */
  start(command: RpcCommand, opts: { timeoutMs?: number | null } = {}): { id: string; response: Promise<unknown> } {
    const id = `pb-${this.nextId++}`;
    if (this.exitInfo) return { id, response: Promise.reject(new PiExitedError(command.type, this.exitInfo)) };
    const timeoutMs = opts.timeoutMs === undefined ? this.options.commandTimeoutMs : opts.timeoutMs;
    const response = new Promise<unknown>((resolve, reject) => {
      const entry: Pending = { command: command.type, resolve, reject, timer: null };
      if (timeoutMs !== null) {
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(`pi ${command.type}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.pending.set(id, entry);
      this.write({ ...command, id });
    });
    return { id, response };
  }

  /** Answers a dialog (`select`/`confirm`/`input`/`editor`); no response follows. */
  answer(requestId: string, answer: UiAnswer): void {
    if (this.exitInfo) throw new PiExitedError('extension_ui_response', this.exitInfo);
    this.write({ type: 'extension_ui_response', id: requestId, ...answer });
  }

  /**
   * Abort, EOF (pi's orderly shutdown), SIGTERM twice (the second ends a shutdown that still
   * runs at once), SIGKILL — each after the previous had `stopGraceMs`. Safe to call twice.
   */
  close(): Promise<PiExit> {
    this.closing ??= (async () => {
      if (this.exitInfo) return this.exitInfo;
      this.stopping = true;
      const grace = this.options.stopGraceMs;
      try {
        await this.request({ type: 'abort' }, { timeoutMs: grace });
      } catch (err) {
        this.options.log(`pi ${this.label()}: abort before stopping: ${(err as Error).message}`);
      }
      this.child.stdin.end();
      if (!(await this.exitWithin(grace))) {
        this.signal('SIGTERM');
        if (!(await this.exitWithin(Math.min(grace, SECOND_SIGNAL_MS)))) {
          this.signal('SIGTERM');
          if (!(await this.exitWithin(grace))) this.signal('SIGKILL');
        }
      }
      const exit = await this.exited;
      // Whatever its tools left running in its group goes with it.
      this.signal('SIGKILL');
      return exit;
    })();
    return this.closing;
  }

  /** Signals pi's whole process group (its tools' commands too) where there is one. */
  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (OWN_GROUP) process.kill(-pid, signal);
      else this.child.kill(signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') this.options.log(`pi ${this.label()}: ${signal}: ${(err as Error).message}`);
    }
  }

  private label(): string {
    return this.child.pid === undefined ? '(not started)' : `pid ${this.child.pid}`;
  }

  private async exitWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.exited.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private write(record: Record<string, unknown>): void {
    // Node queues what the pipe cannot take yet, in order; pi reads its stdin continuously.
    this.child.stdin.write(encodeJsonl(record));
  }

  private record(value: unknown): void {
    const record = classifyRecord(value);
    switch (record.kind) {
      case 'invalid':
        this.options.log(`pi ${this.label()}: ignored a record: ${record.reason}`);
        return;
      case 'response': {
        const { response } = record;
        const entry = response.id === undefined ? undefined : this.pending.get(response.id);
        if (!entry) {
          const why = response.success ? 'that nobody waits for' : `: ${response.error}`;
          this.options.log(`pi ${this.label()}: response to ${response.command}${response.success ? ` ${why}` : why}`);
          return;
        }
        this.pending.delete(response.id!);
        if (entry.timer) clearTimeout(entry.timer);
        if (response.success) entry.resolve(response.data);
        else entry.reject(new PiCommandError(response.command, response.error));
        return;
      }
      case 'ui':
        this.deliver(() => this.options.onUiRequest(record.request));
        return;
      case 'event':
        this.deliver(() => this.options.onEvent(record.event));
        return;
    }
  }

  /** An owner's bug must not stop the stream. */
  private deliver(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.options.log(`pi ${this.label()}: handling a record failed: ${(err as Error).stack ?? String(err)}`);
    }
  }

  private stderr(text: string): void {
    const lines = (this.stderrPartial + text).split('\n');
    this.stderrPartial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      this.stderrTail.push(line.trimEnd());
      if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift();
    }
    if (this.stderrPartial.length > 4096) this.stderrPartial = this.stderrPartial.slice(-4096);
  }

  private describeExit(): PiExit {
    const { code, signal } = this.exitCode ?? { code: null, signal: null };
    const command = this.options.command[0] ?? 'pi';
    let how: string;
    if (this.spawnError && this.child.pid === undefined) {
      const err = this.spawnError as NodeJS.ErrnoException;
      how =
        err.code === 'ENOENT'
          ? `pi not found: "${command}" is not an executable ${/[\\/]/.test(command) ? 'file' : 'on PATH'}. ` +
            "Set pi's path in a terminal: patchbay settings set piCommand '\"/path/to/pi\"'"
          : `pi could not start ("${command}"): ${err.message}`;
    } else if (signal) {
      how = `pi ${this.stopping ? 'was stopped' : 'was killed'} by ${signal}`;
    } else {
      how = this.stopping ? `pi stopped (exit code ${code})` : `pi exited with code ${code}`;
    }
    const tail = [...this.stderrTail, ...(this.stderrPartial.trim() ? [this.stderrPartial.trim()] : [])];
    return { code, signal, message: tail.length > 0 ? `${how}; stderr:\n${tail.join('\n')}` : how };
  }

  private finish(): void {
    if (this.exitInfo) return;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const exit = this.describeExit();
    this.exitInfo = exit;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const entry of waiting) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.reject(new PiExitedError(entry.command, exit));
    }
    this.resolveExited(exit);
    this.deliver(() => this.options.onExit(exit));
  }
}
