// Small helpers every test with peers needs: poll for a condition, a temp dir, one message.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';

/**
 * How long a wait gives up after, unless told. It bounds only a failing test's time: a wait returns
 * as soon as its condition holds. CI runs the whole suite on 2 cores at a load of 5–10, where a
 * browser's render, a child's start or a socket's round trip takes 5–10 times what it does on a
 * quiet machine; 2 s was enough only on a quiet one.
 */
export const WAIT_MS = 10_000;

/**
 * How long a child process (a fake peer, the daemon, the CLI) is given to start: node compiling
 * TypeScript through tsx at load 13 took over 15 s to print a fake editor's ready line.
 */
export const START_MS = 60_000;

export interface WaitOptions {
  /** Default WAIT_MS. */
  timeoutMs?: number;
  /** Default 10 ms. */
  intervalMs?: number;
  /** Says what was awaited; a function is evaluated at timeout time, so it can show state. */
  message?: string | (() => string);
}

export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `cond` until it returns a truthy value (which is returned) or the timeout passes. */
export async function waitFor<T>(cond: () => T | Promise<T>, opts: WaitOptions = {}): Promise<Truthy<T>> {
  const timeoutMs = opts.timeoutMs ?? WAIT_MS;
  const intervalMs = opts.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await cond();
      if (value) return value as Truthy<T>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const what = typeof opts.message === 'function' ? opts.message() : (opts.message ?? 'condition');
      const cause = lastError === undefined ? '' : ` (last error: ${(lastError as Error).message ?? String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Rejects if `promise` has not settled within `ms`; the timer never outlives the race. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface TempDir {
  readonly path: string;
  /** Removes the directory and everything in it. Safe to call twice. */
  cleanup(): Promise<void>;
}

/** A fresh directory under the OS temp dir, e.g. `tempDir('lock')` → /tmp/patchbay-lock-XXXXXX. */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `patchbay-${prefix}-`));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** The next text frame on a raw socket that parses as JSON and matches `predicate`. */
export function onceMessage<T = unknown>(ws: WebSocket, predicate: (msg: T) => boolean = () => true, timeoutMs = WAIT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData, isBinary: boolean): void => {
      if (isBinary) return;
      let msg: T;
      try {
        msg = JSON.parse(data.toString()) as T;
      } catch {
        return; // not JSON: not the message awaited
      }
      if (!predicate(msg)) return;
      finish();
      resolve(msg);
    };
    const onClose = (): void => {
      finish();
      reject(new Error('socket closed before the awaited message arrived'));
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for a message`));
    }, timeoutMs);
    const finish = (): void => {
      clearTimeout(timer);
      ws.off('message', onMessage);
      ws.off('close', onClose);
    };
    ws.on('message', onMessage);
    ws.on('close', onClose);
  });
}
