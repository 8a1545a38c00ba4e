// Patchbay as a child process, with every directory it touches under one temp root: the real
// `patchbay daemon`, or (to profile one phase at a time) the hub alone (hub-child.ts).
// The agent side finds the door the way pi does: from the lockfile in the pi dir.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RemoteHub } from '../../src/api/remote.ts';
import type { SessionView, Snapshot, TrafficEntry } from '../../src/api/types.ts';
import { connectControl } from '../../src/web/control-client.ts';
import { readControlFile } from '../../src/web/control-file.ts';
import { listLockfiles } from '../peers/lockfiles.ts';
import { waitFor } from '../peers/wait.ts';
import { Child } from './child.ts';

export interface PatchbayDirs {
  home: string;
  piLockDir: string;
  claudeConfigDir: string;
  piAgentDir: string;
}

export interface Door {
  port: number;
  token: string;
  lockfile: string;
}

/** What the benchmark needs of a running Patchbay, whichever way it was started. */
export interface PatchbayProcess {
  readonly child: Child;
  readonly dirs: PatchbayDirs;
  readonly door: Door;
  snapshot(): Promise<Snapshot>;
  bind(sessionId: string, editorId: string | null): Promise<SessionView>;
  /** Lets go of anything the benchmark holds open in Patchbay (the control connection). */
  detach(): void;
  close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function prepare(root: string): Promise<{ dirs: PatchbayDirs; env: NodeJS.ProcessEnv }> {
  const dirs: PatchbayDirs = {
    home: join(root, 'home'),
    piLockDir: join(root, 'pi-ide'),
    claudeConfigDir: join(root, 'claude'),
    piAgentDir: join(root, 'pi-agent'),
  };
  await mkdir(dirs.piAgentDir, { recursive: true });
  // Patchbay must see only the directories given here.
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PATCHBAY_')) env[key] = value;
  Object.assign(env, { PATCHBAY_HOME: dirs.home, PI_IDE_LOCK_DIR: dirs.piLockDir, CLAUDE_CONFIG_DIR: dirs.claudeConfigDir, PI_CODING_AGENT_DIR: dirs.piAgentDir });
  return { dirs, env };
}

/** Waits for the door's lockfile written by `pid` (and whatever else `ready` wants). */
async function findDoor(child: Child, dirs: PatchbayDirs, ready: () => Promise<boolean>, timeoutMs: number): Promise<Door> {
  try {
    return await waitFor(
      async () => {
        if (!child.running) throw new Error(`${child.options.label} exited: ${child.stderr().trim()}`);
        if (!(await ready())) return null;
        const { found } = await listLockfiles(dirs.piLockDir);
        const lock = found.find((f) => f.lock.ideName === 'Patchbay' && f.lock.pid === child.pid);
        return lock ? { port: lock.port, token: lock.lock.authToken, lockfile: lock.path } : null;
      },
      { timeoutMs, intervalMs: 20, message: () => `the door lockfile of ${child.options.label}; stderr: ${child.stderr().trim()}` },
    );
  } catch (err) {
    await child.close();
    throw err;
  }
}

/** `node src/cli/bin.mjs daemon`, stopped with SIGTERM by pid (it restores lockfiles). */
export class PatchbayDaemon implements PatchbayProcess {
  private control: Promise<RemoteHub> | null = null;

  private constructor(
    readonly child: Child,
    readonly dirs: PatchbayDirs,
    readonly door: Door,
  ) {}

  /** `nodeFlags`: node's own flags, before the script (the bare relay gets the same ones). */
  static async start(root: string, options: { startTimeoutMs?: number; nodeFlags?: readonly string[] } = {}): Promise<PatchbayDaemon> {
    const { dirs, env } = await prepare(root);
    const child = Child.spawn({ label: 'patchbay daemon', args: [...(options.nodeFlags ?? []), 'src/cli/bin.mjs', 'daemon'], env, graceMs: 8000 });
    const controlReady = async (): Promise<boolean> => (await readControlFile(dirs.home).catch(() => null))?.pid === child.pid;
    const door = await findDoor(child, dirs, controlReady, options.startTimeoutMs ?? 20_000);
    return new PatchbayDaemon(child, dirs, door);
  }

  /** Over the control server, as `patchbay status` does; connected on first use. */
  private hub(): Promise<RemoteHub> {
    this.control ??= connectControl(this.dirs.home);
    return this.control;
  }

  async snapshot(): Promise<Snapshot> {
    try {
      return await (await this.hub()).call('snapshot', undefined);
    } catch (err) {
      this.detach(); // a restarted core: the next call connects afresh
      throw err;
    }
  }

  async bind(sessionId: string, editorId: string | null): Promise<SessionView> {
    return (await this.hub()).call('bind', { sessionId, editorId });
  }

  async traffic(sessionId: string): Promise<TrafficEntry[]> {
    return (await this.hub()).call('traffic', { sessionId, limit: 500 });
  }

  detach(): void {
    const control = this.control;
    this.control = null;
    void control?.then((c) => c.close(), () => {});
  }

  /** `patchbay restart`'s request: answered while the old core hands over; its connection then ends. */
  async restart(): Promise<void> {
    await (await this.hub()).call('restart', undefined);
    this.detach();
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.detach();
    await this.child.close();
    return this.child.exited;
  }
}

/** The hub alone (hub-child.ts), which can profile itself on command. */
export class HubChild implements PatchbayProcess {
  private constructor(
    readonly child: Child,
    readonly dirs: PatchbayDirs,
    readonly door: Door,
  ) {}

  static async start(root: string, options: { nodeFlags?: readonly string[] } = {}): Promise<HubChild> {
    const { dirs, env } = await prepare(root);
    const child = Child.spawn({ label: 'patchbay hub', args: [...(options.nodeFlags ?? []), '--import', 'tsx', 'test/bench/hub-child.ts'], env, graceMs: 8000 });
    const door = await findDoor(child, dirs, async () => child.lines.some((l) => l.ready === true), 20_000);
    return new HubChild(child, dirs, door);
  }

  async snapshot(): Promise<Snapshot> {
    return (await this.child.command({ cmd: 'snapshot' })) as Snapshot;
  }

  async bind(sessionId: string, editorId: string | null): Promise<SessionView> {
    return (await this.child.command({ cmd: 'bind', sessionId, editorId })) as SessionView;
  }

  detach(): void {}

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    await this.child.close();
    return this.child.exited;
  }
}
