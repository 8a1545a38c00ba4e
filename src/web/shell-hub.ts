// The hub a long-lived face (the desktop app) shows: the running daemon's when there is one,
// else a daemon of its own that it starts (`patchbay daemon`: the keeper, whose core restarts
// under it without dropping anyone) and stops when it quits. Two hubs would fight over the lock
// dirs, so there is only ever one. When the daemon it follows goes away, it follows the one that
// replaced it, or starts its own: the tray never shows a dead connection, and agents find a door.
// The face itself holds no socket of the agents': it stays thin, and the desktop app's Restart is
// the daemon's (`restart`), as `patchbay restart` is.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RemoteHub } from '../api/remote.ts';
import { HubError, type HubApi, type HubEvent, type HubMethod, type ParamsOf, type ResultOf } from '../api/types.ts';
import type { HubOptions } from '../options.ts';
import { answeringDaemon, connectControl, locateDaemon } from './control-client.ts';
import { InstanceHeldError } from './instance-lock.ts';
import { checkHome } from '../fs/home-check.ts';

export interface ShellHub extends HubApi {
  /** false while it follows a daemon someone else started: closing then only disconnects, its pending diffs stay. */
  readonly owned: boolean;
  /** Which hub it shows, for logs and the About line. */
  readonly description: string;
  /** Hears why the hub was lost (again after each failed attempt), then null once one is shown again (its snapshot follows). */
  onConnection(cb: (lost: string | null) => void): () => void;
  close(reason: string): Promise<void>;
}

export interface ShellHubDeps {
  log: (message: string) => void;
  /**
   * How it starts a daemon of its own: the program and arguments before `daemon` (the desktop
   * app: its Electron binary as node, ELECTRON_RUN_AS_NODE, on the bundled CLI). Default: this
   * node on `patchbay`'s bin.mjs.
   */
  daemon?: { command: string[]; env?: NodeJS.ProcessEnv };
  /** First wait between attempts after the daemon went away; doubles up to 5 s. */
  retryMs?: number;
}

/** One hub shown: a daemon's over its control socket. */
interface Backend {
  api: HubApi;
  owned: boolean;
  description: string;
  close(reason: string): Promise<void>;
  /** The daemon's connection ended. */
  onLost?(cb: (why: string) => void): void;
}

const MAX_RETRY_MS = 5000;
/** Attempts at start while another hub holds the lock without answering yet. */
const START_ATTEMPTS = 8;
/** A daemon of its own answers this soon after it was started, or it is given up on. */
const DAEMON_START_MS = 30_000;
/** A clean stop (pending edits rejected, lockfiles back) takes this long at most before the daemon is killed. */
const DAEMON_STOP_MS = 30_000;

const BIN = fileURLToPath(new URL('../cli/bin.mjs', import.meta.url));

/** A `patchbay daemon` this face started: it stops it (cleanly) when the face closes. */
class OwnDaemon {
  /** Its last words on stderr, for saying why it did not start. */
  private said = '';
  private partial = '';
  /** It could not be started at all (no such program): no exit follows. */
  private spawnError: Error | null = null;
  private readonly exited: Promise<void>;
  private stopping: Promise<void> | null = null;

  private constructor(
    private readonly child: ChildProcess,
    private readonly deps: ShellHubDeps,
  ) {
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.said = (this.said + text).slice(-4000);
      const lines = (this.partial + text).split('\n');
      this.partial = lines.pop()!.slice(-4000);
      for (const line of lines) if (line.trim() !== '') deps.log(`daemon: ${line.replace(/^patchbay: /, '')}`);
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', (err) => {
        deps.log(`daemon: ${err.message}`);
        if (child.pid === undefined) {
          this.spawnError = err;
          resolve();
        }
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.spawnError === null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Why it is not running: its last line on stderr, else how it ended. */
  private get why(): string {
    const last = this.said.trim().split('\n').at(-1)?.replace(/^patchbay: /, '');
    if (last) return last;
    if (this.spawnError) return this.spawnError.message;
    return this.child.signalCode ? `it was killed (${this.child.signalCode})` : `it exited with code ${this.child.exitCode}`;
  }

  /** Starts it and waits until it answers; throws saying why it did not. */
  static async start(options: HubOptions, deps: ShellHubDeps): Promise<OwnDaemon> {
    // Before anything in it is read or asked: another user's home could name programs to run.
    await checkHome(options.home);
    const [program, ...args] = deps.daemon?.command ?? [process.execPath, BIN];
    // Its own process group: a Ctrl-C or closed terminal reaches the face alone, which then stops
    // it once (a second signal while it ends review would make the daemon give up cleaning up).
    const child = spawn(program!, [...args, 'daemon'], { env: deps.daemon?.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'], detached: true, windowsHide: true });
    const own = new OwnDaemon(child, deps);
    const deadline = Date.now() + DAEMON_START_MS;
    for (;;) {
      if (!own.running) {
        // Another one holds the home (it is starting): the caller looks again.
        if (/already running/.test(own.why)) throw new InstanceHeldError(null, options.home);
        throw new HubError(`the daemon did not start: ${own.why}`, 'unavailable');
      }
      if (Date.now() > deadline) {
        own.kill();
        throw new HubError(`the daemon (pid ${own.pid}) did not answer within ${DAEMON_START_MS / 1000} s: ${own.said.trim()}`, 'unavailable');
      }
      const answering = await answeringDaemon(options.home).catch(() => null);
      if (answering !== null && answering.pid === own.pid) return own;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Shown over its control socket (again, after its core restarted). */
  async backend(options: HubOptions): Promise<Backend> {
    const remote = await connectControl(options.home);
    const control = await locateDaemon(options.home);
    return {
      api: remote,
      owned: true,
      description: `its own daemon (pid ${this.pid}) at ${control.host}:${control.port}`,
      onLost: (cb) => remote.onClose(cb),
      close: async (reason) => {
        remote.close();
        await this.stop(reason);
      },
    };
  }

  /** The full stop: pending edits rejected, lockfiles put back (as SIGTERM to any daemon). */
  stop(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.deps.log(`stopping its daemon (pid ${this.pid}): ${reason}`);
      if (this.running) this.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([this.exited.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DAEMON_STOP_MS)))]);
      clearTimeout(timer);
      if (stopped) return;
      this.deps.log(`its daemon did not stop within ${DAEMON_STOP_MS / 1000} s; killing it`);
      this.kill();
    })();
    return this.stopping;
  }

  /** Its whole process group (its own, as it was started detached): the core and hosted pis go with it. */
  private kill(): void {
    if (process.platform === 'win32' || this.pid === undefined) {
      this.child.kill('SIGKILL');
      return;
    }
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
}

function remoteBackend(remote: RemoteHub, description: string): Backend {
  return { api: remote, owned: false, description, close: async () => remote.close(), onLost: (cb) => remote.onClose(cb) };
}

export async function connectShellHub(options: HubOptions, deps: ShellHubDeps): Promise<ShellHub> {
  const listeners = new Set<(event: HubEvent) => void>();
  const connectionListeners = new Set<(lost: string | null) => void>();
  const firstRetryMs = deps.retryMs ?? 250;
  let backend: Backend | null = null;
  let unsubscribe: () => void = () => {};
  let lostBecause = '';
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;

  const emit = (event: HubEvent): void => {
    for (const listener of [...listeners]) listener(event);
  };
  const connection = (lost: string | null): void => {
    for (const listener of [...connectionListeners]) listener(lost);
  };

  /** A daemon this face started (it stops it when it closes), while it runs. */
  let own: OwnDaemon | null = null;

  /** The daemon if one runs (ours again, after its core restarted), else one of our own. Throws when none can be had right now. */
  const attach = async (): Promise<Backend> => {
    const daemon = await answeringDaemon(options.home);
    if (daemon !== null && own?.running && daemon.pid === own.pid) return own.backend(options);
    if (daemon !== null) return remoteBackend(await connectControl(options.home), `the daemon (pid ${daemon.pid}) at ${daemon.host}:${daemon.port}`);
    // Ours still runs but does not answer yet: it holds the home, so a second one would only be refused.
    if (own?.running) throw new HubError(`its daemon (pid ${own.pid}) is not answering yet`, 'unavailable');
    own = await OwnDaemon.start(options, deps);
    return own.backend(options);
  };

  const show = (next: Backend): void => {
    backend = next;
    unsubscribe = next.api.subscribe(emit);
    next.onLost?.((why) => lost(next, why));
    deps.log(`showing ${next.description}`);
  };

  /** The daemon we showed is gone: find or start one again, until it works. */
  const lost = (gone: Backend, why: string): void => {
    if (closed || backend !== gone) return;
    unsubscribe();
    backend = null;
    lostBecause = why;
    deps.log(`lost the daemon (${why}); reconnecting`);
    connection(why);
    retry(firstRetryMs);
  };

  const retry = (waitMs: number): void => {
    retryTimer = setTimeout(() => {
      retryTimer = null;
      attach().then(
        async (next) => {
          if (closed) return next.close('Patchbay is quitting');
          show(next);
          connection(null);
          // Faces redraw from this; whatever they held came from the hub that went away.
          emit({ type: 'snapshot', snapshot: await next.api.call('snapshot', undefined) });
        },
        (err: Error) => {
          if (closed) return;
          lostBecause = `${err.message}; still trying`;
          deps.log(`cannot reconnect yet: ${err.message}`);
          connection(lostBecause);
          retry(Math.min(waitMs * 2, MAX_RETRY_MS));
        },
      ).catch((err: Error) => deps.log(`after reconnecting: ${err.message}`));
    }, waitMs);
  };

  /** A hub that holds the lock but does not answer yet is starting: give it a few seconds to. */
  const firstAttach = async (): Promise<Backend> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await attach();
      } catch (err) {
        if (!(err instanceof InstanceHeldError) || attempt >= START_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(firstRetryMs * attempt, MAX_RETRY_MS)));
      }
    }
  };

  show(await firstAttach());

  return {
    get owned() {
      return backend?.owned ?? false;
    },
    get description() {
      return backend?.description ?? `no hub (${lostBecause})`;
    },
    call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
      if (backend === null) {
        return Promise.reject(new HubError(`${method}: Patchbay is reconnecting (${lostBecause})`, 'unavailable'));
      }
      return backend.api.call(method, params);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    onConnection(cb) {
      connectionListeners.add(cb);
      return () => {
        connectionListeners.delete(cb);
      };
    },
    async close(reason) {
      closed = true;
      if (retryTimer !== null) clearTimeout(retryTimer);
      unsubscribe();
      await backend?.close(reason);
      // Quitting while its own daemon restarts (no backend shown): it stops all the same.
      await own?.stop(reason);
    },
  };
}
