// "Start this program and tell me its output and its exit": all the remote manager asks of
// whoever owns its ssh processes. Kept this small (lines in and out, serialisable) so that the
// owner can be another process: under the daemon the keeper (src/keeper/) runs them as it runs
// hosted pis, so a tunnel does not drop because the core restarted or crashed (hostChildHost).
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import type { CoreHost, OwnedChild } from '../core/host.ts';

export interface ChildSpec {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** What a next core needs to take it over (kept by the host with the child). */
  meta?: unknown;
}

export interface ChildEvents {
  /** One line of its stdout, without the newline (a line longer than the cap is cut). */
  stdout(line: string): void;
  stderr(line: string): void;
  /** Once: it exited (`spawnError`: it never ran). */
  exit(exit: { code: number | null; signal: string | null; spawnError?: string }): void;
}

export interface ChildHandle {
  readonly pid: number | null;
  /** Writes to its stdin (dropped once it has exited or its stdin is closed). */
  write(text: string): void;
  /** Closes its stdin. */
  endInput(): void;
  kill(signal?: NodeJS.Signals): void;
  /** Replaces what a next core gets of it (nothing where nothing outlives this process). */
  keep?(meta: unknown): void;
}

export interface ChildHost {
  start(spec: ChildSpec, events: ChildEvents): ChildHandle;
}

/** How long output may still come after the child exited before its exit is reported anyway. */
const EXIT_GRACE_MS = 1000;

/** Longer lines are cut here: a peer must not make Patchbay hold a line without end. */
export const MAX_LINE_CHARS = 64 * 1024;

/** Splits chunks into lines (`\n`, a trailing `\r` dropped), each at most `max` characters. */
export function lineSplitter(onLine: (line: string) => void, max = MAX_LINE_CHARS): { push(chunk: string): void; end(): void } {
  let buffer = '';
  let cut = false;
  const emit = (line: string): void => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  return {
    push(chunk) {
      let start = 0;
      for (let at = chunk.indexOf('\n'); at >= 0; at = chunk.indexOf('\n', start)) {
        const piece = chunk.slice(start, at);
        if (!cut) emit((buffer + piece).slice(0, max));
        buffer = '';
        cut = false;
        start = at + 1;
      }
      if (cut) return;
      buffer += chunk.slice(start);
      if (buffer.length > max) {
        emit(buffer.slice(0, max));
        buffer = '';
        cut = true;
      }
    },
    end() {
      if (buffer !== '' && !cut) emit(buffer);
      buffer = '';
    },
  };
}

/** Children of this process: the host until the long-lived part of Patchbay owns them. */
export const localChildHost: ChildHost = {
  start(spec, events) {
    let exited = false;
    const finish = (exit: { code: number | null; signal: string | null; spawnError?: string }): void => {
      if (exited) return;
      exited = true;
      events.exit(exit);
    };
    const child = spawn(spec.command, [...spec.args], { env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = lineSplitter(events.stdout);
    const err = lineSplitter(events.stderr);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => err.push(chunk));
    // A child gone before it read its input: the write fails, the exit says why.
    child.stdin.on('error', () => {});
    child.on('error', (error) => {
      if (child.pid === undefined) finish({ code: null, signal: null, spawnError: error.message });
    });
    child.on('close', (code, signal) => {
      out.end();
      err.end();
      finish({ code, signal });
    });
    // A grandchild (a ProxyCommand) may hold its pipes open after it exited: its exit counts.
    child.on('exit', (code, signal) => setTimeout(() => finish({ code, signal }), EXIT_GRACE_MS).unref());
    return {
      get pid() {
        return child.pid ?? null;
      },
      write(text) {
        if (!exited && child.stdin.writable) child.stdin.write(text);
      },
      endInput() {
        if (child.stdin.writable) child.stdin.end();
      },
      kill(signal = 'SIGTERM') {
        if (!exited && child.exitCode === null && child.signalCode === null) child.kill(signal);
      },
    };
  },
};

/**
 * Children the core's host runs: under the daemon the keeper, so they outlive the core, and a
 * next core takes them over (ownedHandle). Each in a process group of its own, so that a signal
 * reaches ssh and its ProxyCommand together, and Ctrl-C in the daemon's terminal neither.
 */
export function hostChildHost(host: CoreHost): ChildHost {
  return {
    start(spec, events) {
      const child = host.spawn({
        id: `ssh-${randomUUID()}`,
        command: spec.command,
        args: [...spec.args],
        cwd: process.cwd(),
        env: spec.env,
        detached: true,
        meta: spec.meta ?? null,
      });
      return ownedHandle(child, events);
    },
  };
}

/** A child the host runs (started now, or taken over from an earlier core), as lines and one exit. */
export function ownedHandle(child: OwnedChild, events: ChildEvents): ChildHandle {
  let exited = false;
  const out = lineSplitter(events.stdout);
  const err = lineSplitter(events.stderr);
  const finish = (exit: { code: number | null; signal: string | null; spawnError?: string }): void => {
    if (exited) return;
    exited = true;
    out.end();
    err.end();
    events.exit(exit);
  };
  child.onStdout((text) => out.push(text));
  child.onStderr((text) => err.push(text));
  child.onExit((code, signal) => finish({ code, signal }));
  child.started.catch((error: Error) => finish({ code: null, signal: null, spawnError: error.message }));
  return {
    get pid() {
      return child.pid;
    },
    write(text) {
      if (!exited) child.write(text);
    },
    endInput() {
      if (!exited) child.endInput();
    },
    kill(signal = 'SIGTERM') {
      if (!exited) child.signal(signal, true);
    },
    keep(meta) {
      child.keep(meta);
    },
  };
}
