// A node child process the benchmark owns: spawned with tsx, its stdout read as JSON lines,
// stopped by its pid (SIGTERM, then SIGKILL after a grace period). `close()` is safe twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { withTimeout } from '../peers/wait.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type Line = Record<string, unknown>;

interface Waiter {
  pred(line: Line): boolean;
  resolve(line: Line): void;
  reject(err: Error): void;
  why(): string;
}

export interface ChildOptions {
  /** Who it is, for messages. */
  label: string;
  /** Arguments after the node executable (flags, script, script args). */
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** How long `close()` waits after SIGTERM before SIGKILL. Default 5000 ms. */
  graceMs?: number;
}

let nextTag = 1;

export class Child {
  /** JSON lines nobody has waited for yet. */
  readonly lines: Line[] = [];
  private readonly waiters = new Set<Waiter>();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private stderrText = '';
  private stdoutText = '';
  private closing: Promise<void> | null = null;

  private constructor(
    readonly options: ChildOptions,
    readonly process: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => process.once('exit', (code, signal) => resolve({ code, signal })));
    process.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderrText += chunk));
    // The child may die before reading what we write; that shows up in `exited`.
    process.stdin!.on('error', () => {});
    createInterface({ input: process.stdout! }).on('line', (text) => {
      this.stdoutText += `${text}\n`;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return; // not a JSON line (e.g. the daemon's banner): kept in stdout() only
      }
      if (typeof value === 'object' && value !== null) this.deliver(value as Line);
    });
    void this.exited.then(() => {
      for (const w of this.waiters) w.reject(new Error(`${this.options.label} exited before ${w.why()}`));
      this.waiters.clear();
    });
  }

  static spawn(options: ChildOptions): Child {
    const child = spawn(process.execPath, options.args, { cwd: ROOT, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    return new Child(options, child);
  }

  get pid(): number {
    return this.process.pid ?? 0;
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  private deliver(line: Line): void {
    for (const w of this.waiters) {
      if (w.pred(line)) {
        this.waiters.delete(w);
        w.resolve(line);
        return;
      }
    }
    this.lines.push(line);
  }

  stderr(): string {
    return this.stderrText;
  }

  stdout(): string {
    return this.stdoutText;
  }

  /** The first JSON line matching `pred` (taken out of `lines`); fails early when the child exits. */
  waitForLine(pred: (line: Line) => boolean, timeoutMs: number, what: string): Promise<Line> {
    const at = this.lines.findIndex(pred);
    if (at >= 0) return Promise.resolve(this.lines.splice(at, 1)[0]!);
    const why = (): string => `${what} from ${this.options.label} (pid ${this.pid}); stderr: ${this.stderrText.trim().slice(-2000)}`;
    if (!this.running) return Promise.reject(new Error(`${this.options.label} has exited; no ${why()}`));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        pred,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
        why,
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${why()}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Sends one command line (test/peers/cli.ts protocol) and resolves with its result. */
  async command(command: Record<string, unknown>, timeoutMs = 10_000): Promise<unknown> {
    const tag = `b${nextTag++}`;
    const answer = this.waitForLine((l) => l.tag === tag && (l.event === 'result' || l.event === 'error'), timeoutMs, `answer to ${String(command.cmd)}`);
    this.process.stdin!.write(`${JSON.stringify({ ...command, tag })}\n`);
    const line = await answer;
    if (line.event === 'error') throw new Error(`${this.options.label}: ${String(line.message)}`);
    return line.result;
  }

  /** SIGTERM by pid, SIGKILL if it has not exited within the grace period. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.running) return;
      this.process.kill('SIGTERM');
      try {
        await withTimeout(this.exited, this.options.graceMs ?? 5000, `${this.options.label} (pid ${this.pid}) to exit`);
      } catch {
        if (this.running) this.process.kill('SIGKILL');
        await this.exited;
      }
    })();
    return this.closing;
  }
}

/** Resident set size of a live process in bytes, from /proc/<pid>/status (Linux). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`/proc/${pid}/status: no VmRSS line`);
  return Number(match[1]) * 1024;
}

/** A process and all its descendants (Linux: /proc/<pid>/task/<tid>/children), the process first. */
export async function processTree(pid: number): Promise<number[]> {
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const children = await Promise.all(
    tids.map((tid) =>
      readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').then(
        (text) => text.split(' ').filter((t) => t !== '').map(Number),
        () => [] as number[],
      ),
    ),
  );
  const below = await Promise.all(children.flat().map((child) => processTree(child)));
  return [pid, ...below.flat()];
}

/**
 * CPU time of a process and its descendants, in ms: Patchbay's daemon is a keeper and the core
 * it runs, and both work on a relayed diff (the core relays it, the keeper keeps a copy of it).
 */
export async function treeCpuMillis(pid: number): Promise<number> {
  const pids = await processTree(pid);
  const each = await Promise.all(pids.map((p) => cpuMillis(p).catch(() => 0)));
  return each.reduce((sum, n) => sum + n, 0);
}

/**
 * Resident memory of a process and its descendants (keeper and core together), in bytes: each
 * one's own pages, plus the pages they share counted once (the largest share among them: node's
 * binary and libraries, mapped by each). A sum of VmRSS counts node itself once per process; for
 * one process this is its VmRSS.
 */
export async function treeResidentBytes(pid: number): Promise<number> {
  const pids = await processTree(pid);
  const each = await Promise.all(pids.map((p) => pagesOf(p).catch(() => ({ own: 0, shared: 0 }))));
  return each.reduce((sum, m) => sum + m.own, 0) + Math.max(0, ...each.map((m) => m.shared));
}

/** A process's resident pages (/proc/<pid>/smaps_rollup): its own (private) and those it shares, in bytes. */
async function pagesOf(pid: number): Promise<{ own: number; shared: number }> {
  const text = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { own: kb('Private_Clean') + kb('Private_Dirty'), shared: kb('Shared_Clean') + kb('Shared_Dirty') };
}

/**
 * CPU time a live process has used so far, in ms, from the kernel's own counters for it: the
 * nanoseconds each of its threads has run (/proc/<pid>/task/<tid>/schedstat), so that a diff's
 * few milliseconds are not lost in /proc/<pid>/stat's 10 ms ticks. Falls back to those ticks
 * where schedstat is missing (kernels without CONFIG_SCHEDSTATS).
 */
export async function cpuMillis(pid: number): Promise<number> {
  try {
    const tids = await readdir(`/proc/${pid}/task`);
    const runs = await Promise.all(
      tids.map((tid) =>
        readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').then(
          (text) => Number(text.split(' ')[0]),
          () => 0, // a thread that ended meanwhile
        ),
      ),
    );
    const nanos = runs.reduce((sum, n) => sum + n, 0);
    if (Number.isFinite(nanos) && nanos > 0) return nanos / 1e6;
  } catch {
    // no task list: the ticks below
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after `comm` (which may hold spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[14 - 3]) + Number(fields[15 - 3]);
  if (!Number.isFinite(ticks)) throw new Error(`/proc/${pid}/stat: no utime/stime`);
  return ticks * 10; // USER_HZ is 100 on every platform Node supports
}
