// One hub per $PATCHBAY_HOME: two would fight over the lock dirs, and the CLI would see only
// one of them. The lock is a Unix socket listening at `<home>/patchbay.sock` (a named pipe on
// Windows): binding is atomic, so of any number of simultaneous starts exactly one gets it,
// and the others ask it who it is. A socket left by a crash accepts no connection; it is
// replaced only under a short-lived mutex (`patchbay.sock.cleanup`, a directory), so two
// starts that both find it stale cannot both remove it and both bind.
import { createHash } from 'node:crypto';
import { mkdir, rmdir, stat, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { HubError } from '../api/types.ts';
import { HOME_FILES } from '../fs/home-files.ts';

export interface InstanceHolder {
  pid: number;
  /** `daemon` or `desktop app`. */
  kind: string;
}

export interface InstanceLock {
  readonly path: string;
  /** Frees the lock (the socket file goes with it); safe to call twice. */
  release(): Promise<void>;
}

/** Another Patchbay holds the lock for this home. */
export class InstanceHeldError extends HubError {
  constructor(
    readonly holder: InstanceHolder | null,
    home: string,
  ) {
    const who = holder === null ? 'a process that does not say which' : `pid ${holder.pid}, the ${holder.kind}`;
    super(`Patchbay is already running for ${home} (${who})`, 'conflict');
    this.name = 'InstanceHeldError';
  }
}

const ASK_TIMEOUT_MS = 1000;
/** A cleanup mutex older than this was left by a start that died inside it. */
const STALE_MUTEX_MS = 10_000;
const MUTEX_POLL_MS = 20;
/** sun_path is 108 bytes on Linux, 104 on macOS, NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;

export function instanceSocketPath(home: string, os: NodeJS.Platform = process.platform): string {
  if (os === 'win32') return `\\\\.\\pipe\\patchbay-${createHash('sha256').update(home).digest('hex').slice(0, 32)}`;
  return join(home, HOME_FILES.instanceSocket);
}

function listen(path: string, holder: InstanceHolder): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => {}); // an asker that hangs up early is no concern of ours
      socket.end(`${JSON.stringify(holder)}\n`);
    });
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      server.on('error', () => {}); // a failed accept must not bring the hub down
      resolve(server);
    });
  });
}

type Answer = { kind: 'alive'; holder: InstanceHolder | null } | { kind: 'stale' } | { kind: 'gone' };

/** Who holds the socket: a live holder answers with its pid, a stale socket refuses. */
function ask(path: string): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let text = '';
    const done = (answer: Answer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    // Connected but silent: alive, whoever it is.
    const timer = setTimeout(() => done({ kind: 'alive', holder: null }), ASK_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      try {
        const value = JSON.parse(text) as Partial<InstanceHolder>;
        const valid = typeof value.pid === 'number' && typeof value.kind === 'string';
        done({ kind: 'alive', holder: valid ? { pid: value.pid!, kind: value.kind! } : null });
      } catch {
        done({ kind: 'alive', holder: null });
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') done({ kind: 'stale' });
      else if (err.code === 'ENOENT') done({ kind: 'gone' });
      else done({ kind: 'alive', holder: null });
    });
  });
}

/** Runs `action` while holding `<path>.cleanup`; waits for another holder, removes one left by a crash. */
async function withCleanupMutex<T>(path: string, action: () => Promise<T>): Promise<T> {
  const mutex = `${path}.cleanup`;
  for (;;) {
    try {
      await mkdir(mutex, { mode: 0o700 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(mutex).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > STALE_MUTEX_MS) await rmdir(mutex).catch(() => {});
      else await new Promise((resolve) => setTimeout(resolve, MUTEX_POLL_MS));
    }
  }
  try {
    return await action();
  } finally {
    await rmdir(mutex).catch(() => {});
  }
}

/**
 * Takes the lock for `home`, or throws InstanceHeldError naming the holder. `kind` is what
 * this process says it is to the next one that asks.
 */
export async function acquireInstanceLock(home: string, kind: string): Promise<InstanceLock> {
  const path = instanceSocketPath(home);
  const holder: InstanceHolder = { pid: process.pid, kind };
  if (process.platform !== 'win32') {
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      throw new HubError(`cannot lock ${home}: the socket path ${path} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; use a shorter PATCHBAY_HOME`);
    }
    await mkdir(home, { recursive: true, mode: 0o700 });
  }
  const take = async (): Promise<Server | Answer> => {
    try {
      return await listen(path, holder);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      return ask(path);
    }
  };
  let server: Server | null = null;
  for (let attempt = 0; server === null; attempt++) {
    const first = await take();
    if ('listening' in first) server = first;
    else if (first.kind === 'alive') throw new InstanceHeldError(first.holder, home);
    else if (attempt >= 5) throw new HubError(`cannot lock ${home}: ${path} keeps changing under us`);
    else if (first.kind === 'stale') {
      // Only under the mutex is a stale socket removed: nobody else can swap in a live one meanwhile.
      const taken = await withCleanupMutex(path, async () => {
        if ((await ask(path)).kind !== 'stale') return null;
        await unlink(path).catch(() => {});
        return listen(path, holder);
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') return null;
        throw err;
      });
      server = taken;
    }
  }
  const listening = server;
  let released: Promise<void> | null = null;
  return {
    path,
    release: () => (released ??= new Promise<void>((resolve) => listening.close(() => resolve()))),
  };
}
