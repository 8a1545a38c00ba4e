// One `pi --mode rpc` child process: commands out with ids, responses matched back to them,
// events and extension UI requests handed to the owner. The client owns the child; `close()`
// asks pi to stop (abort, then EOF on stdin) and escalates to SIGTERM and SIGKILL.
import { randomBytes } from 'node:crypto';
import { LocalHost, type CoreHost, type OwnedChild } from '../core/host.ts';
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
  /** Who runs pi (default: this process); under the daemon the keeper, so pi outlives a core. */
  host?: CoreHost;
  /** What a next core needs to take this pi over (host.ts OwnedChild.keep). */
  meta?: unknown;
  /** A pi the host already runs (a core restarted under it): taken over, not started. */
  adopt?: OwnedChild;
}

interface Pending {
  command: string;
  resolve(data: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | null;
}

const STDERR_LINES = 12;

/**
 * pi 0.99 and later let one signal pass while the shutdown EOF started runs (it may be saving a
 * refreshed token) and exit at once on a second; 0.87 exits on the first. Two signals sent back
 * to back can merge into one pending signal, so the second waits this long.
 */
const SECOND_SIGNAL_MS = 200;

/** Process groups are POSIX; on Windows pi is signalled alone. */
const OWN_GROUP = process.platform !== 'win32';

/** Command ids: a core restarted under a running pi must not answer an old command's late response. */
function idPrefix(): string {
  return `pb-${randomBytes(3).toString('hex')}-`;
}

export class PiRpcClient {
  private readonly child: OwnedChild;
  private readonly idPrefix = idPrefix();
  private readonly pending = new Map<string, Pending>();
  private readonly stderrTail: string[] = [];
  private stderrPartial = '';
  private nextId = 1;
  private exitInfo: PiExit | null = null;
  private exitCode: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private spawnError: Error | null = null;
  private stopping = false;
  private closing: Promise<PiExit> | null = null;
  private resolveExited!: (exit: PiExit) => void;
  /** Settles once, when pi has exited (or could not start). */
  readonly exited: Promise<PiExit>;

  constructor(private readonly options: PiRpcClientOptions) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    const [program, ...lead] = options.command;
    if (program === undefined) throw new Error('pi command is empty');
    this.child =
      options.adopt ??
      (options.host ?? new LocalHost()).spawn({
        id: `pi-${randomBytes(4).toString('hex')}`,
        command: program,
        args: [...lead, '--mode', 'rpc', ...options.args],
        cwd: options.cwd,
        env: options.env,
        // Its own process group, so stopping pi also stops the commands its tools started.
        detached: OWN_GROUP,
        meta: options.meta ?? null,
      });
    const decoder = new JsonlDecoder({
      onRecord: (value) => this.record(value),
      onError: (err) => options.log(`pi ${this.label()}: stdout ${err.message}: ${err.preview}`),
    });
    this.child.onStdout((text) => decoder.push(text));
    this.child.onStderr((text) => this.stderr(text));
    this.child.started.catch((err: Error) => {
      // A failed spawn never exits: this is its end.
      this.spawnError = err;
      decoder.end();
      this.finish();
    });
    this.child.onExit((code, signal) => {
      decoder.end();
      this.exitCode = { code, signal };
      this.finish();
    });
  }

  get pid(): number | null {
    return this.child.pid;
  }

  /** The host's child (a core restarted under it takes it over). */
  get owned(): OwnedChild {
    return this.child;
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
    const id = `${this.idPrefix}${this.nextId++}`;
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
      this.child.endInput();
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
    try {
      this.child.signal(signal, OWN_GROUP);
    } catch (err) {
      this.options.log(`pi ${this.label()}: ${signal}: ${(err as Error).message}`);
    }
  }

  private label(): string {
    return this.child.pid === null ? '(not started)' : `pid ${this.child.pid}`;
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
    this.child.write(encodeJsonl(record));
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
    if (this.spawnError && this.child.pid === null) {
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
