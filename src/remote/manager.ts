// The remotes Patchbay keeps connected (DESIGN §9b): for each, a tunnel that is reopened with
// backoff after a drop (state.ts decides, this carries it out), fresh tokens per connection so
// the door knows which remote an agent came through, and the lookups that tell which process
// over there a session is (the tunnel hides it from this machine's /proc).
import type { Dialect, RemoteConfig, RemoteView } from '../api/types.ts';
import type { ProcessInfo } from '../discovery/peer-process.ts';
import { DOOR_IDE_NAME } from '../discovery/takeover.ts';
import { serializeLockfile } from '../protocol/lockfile.ts';
import type { RemoteSide } from '../relay/session.ts';
import type { Original } from '../review/read-original.ts';
import { newToken } from '../transport/tokens.ts';
import type { OwnedChild } from '../core/host.ts';
import { ownedHandle, type ChildHost } from './child-host.ts';
import { keptTunnel, readKeptTunnel, type KeptTunnel } from './kept.ts';
import type { PathMapping } from './paths.ts';
import { BACKOFF, initialState, transition, type BackoffPolicy, type LinkEffect, type LinkEvent, type LinkState } from './state.ts';
import { Tunnel, type RemoteLockfile, type TunnelUp } from './tunnel.ts';

/** A token the door accepts, and the remote it stands for. */
export interface RemoteKey {
  dialect: Dialect;
  token: string;
  remote: string;
}

/** What the relay knows of the remote a session came through (the relay's RemoteSide). */
export type RemoteOrigin = RemoteSide;

export interface RemoteManagerOptions {
  host: ChildHost;
  /** The ssh program: `ssh` on PATH. */
  ssh: string;
  env: NodeJS.ProcessEnv;
  aliveIntervalS: number;
  aliveCountMax: number;
  connectTimeoutS: number;
  /** A connection not up this long after its start is given up (and retried). */
  upDeadlineMs: number;
  requestTimeoutMs: number;
  /** Stopping: the helper gets this long to remove its lockfiles before ssh is terminated. */
  stopGraceMs: number;
  backoff?: BackoffPolicy;
  doorPort(): number;
  /** The agent-facing dialects: each gets a lockfile over there (Claude's only while Claude support is on). */
  dialects(): Dialect[];
  onChange(): void;
  log(message: string): void;
  now(): number;
}

/** A file over there is read for a review up to this: it comes over the tunnel as base64 lines. */
const REMOTE_READ_BYTES = 2 * 1024 * 1024;

class RemoteLink implements RemoteOrigin {
  state: LinkState = initialState();
  tunnel: Tunnel | null = null;
  /** This connection's tokens (fresh for each). */
  tokens: Partial<Record<Dialect, string>> = {};
  up: TunnelUp | null = null;
  /** What the last connection wrote over there: the next one removes it if it is still there (a drop the server missed). */
  leftBehind: RemoteLockfile[] = [];
  retry: NodeJS.Timeout | null = null;
  /** Session id → the agent port over there it was matched to. */
  readonly claims = new Map<string, number>();
  /** Lookups one at a time, so two sessions never take the same connection. */
  private lookups: Promise<unknown> = Promise.resolve();
  /** Waiters for the state to leave `connecting`. */
  readonly settledWaiters = new Set<() => void>();
  /** A tunnel an earlier core left running, to go on with instead of connecting (once). */
  adopting: { child: OwnedChild; up: TunnelUp; tokens: KeptTunnel['tokens'] } | null = null;

  constructor(
    readonly config: RemoteConfig,
    private readonly manager: RemoteManager,
  ) {}

  get name(): string {
    return this.config.name;
  }

  get maps(): readonly PathMapping[] {
    return this.config.maps;
  }

  identify(sessionId: string): Promise<ProcessInfo | null> {
    const run = async (): Promise<ProcessInfo | null> => {
      const tunnel = this.tunnel;
      if (!tunnel || this.state.state !== 'connected') return null;
      const taken = new Set([...this.claims].filter(([id]) => id !== sessionId).map(([, port]) => port));
      // The oldest connection nobody has: sessions reach the door in the order they connected.
      const free = (await tunnel.connections()).filter((c) => !taken.has(c.agentPort)).sort((a, b) => a.inode - b.inode);
      const first = free[0];
      if (!first) return null;
      this.claims.set(sessionId, first.agentPort);
      return this.processInfo(first.pid);
    };
    const result = this.lookups.then(run, run);
    this.lookups = result.catch(() => null);
    return result;
  }

  async processInfo(pid: number): Promise<ProcessInfo | null> {
    const tunnel = this.tunnel;
    if (!tunnel || this.state.state !== 'connected') return null;
    const { cwd, command } = await tunnel.process(pid);
    if (cwd === null && command === null) return null;
    return { pid, cwd, command, startedAt: null };
  }

  async readOriginal(path: string, maxBytes: number): Promise<Original> {
    const unseen = { contents: null, isNew: false, tooLarge: false };
    const tunnel = this.tunnel;
    if (!tunnel || this.state.state !== 'connected') return unseen;
    try {
      const read = await tunnel.readFile(path, Math.min(maxBytes, REMOTE_READ_BYTES));
      if (read.kind === 'bytes') return { contents: read.bytes, isNew: false, tooLarge: false };
      if (read.kind === 'missing') return { contents: null, isNew: true, tooLarge: false };
      if (read.kind === 'too-large') return { contents: null, isNew: false, tooLarge: true };
      return unseen;
    } catch {
      // The tunnel went down meanwhile: reviewed without the old side rather than not at all.
      return unseen;
    }
  }

  claimOf(sessionId: string): number | null {
    return this.claims.get(sessionId) ?? null;
  }

  claim(sessionId: string, agentPort: number | null): void {
    if (agentPort !== null) this.claims.set(sessionId, agentPort);
  }

  release(sessionId: string): void {
    this.claims.delete(sessionId);
  }

  view(): RemoteView | null {
    const s = this.state;
    if (s.state === 'stopped') return null;
    const { name, destination, maps } = this.config;
    const connected = s.state === 'connected' ? this.up : null;
    return {
      name,
      destination,
      maps: maps.map((m) => ({ ...m })),
      state: s.state,
      reason: s.state === 'failed' ? s.reason : s.state === 'connecting' ? s.lastFailure : null,
      remotePort: connected?.remotePort ?? null,
      lockfiles: connected?.lockfiles.map((l) => l.path) ?? [],
      problems: connected?.problems ?? [],
      since: s.since,
      retryAt: s.state === 'failed' ? s.retryAt : null,
    };
  }

  dispatch(event: LinkEvent): void {
    const { next, effects } = transition(this.state, event, this.manager.now(), this.manager.backoff);
    this.state = next;
    for (const effect of effects) this.manager.carryOut(this, effect);
    if (next.state !== 'connecting') for (const waiter of [...this.settledWaiters]) waiter();
    this.manager.changed();
  }
}

export class RemoteManager {
  private readonly links = new Map<string, RemoteLink>();
  readonly backoff: BackoffPolicy;
  private closed = false;
  /** Syncs run one after another: a caller that awaits one knows every earlier change is done. */
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: RemoteManagerOptions) {
    this.backoff = opts.backoff ?? BACKOFF;
  }

  now(): number {
    return this.opts.now();
  }

  changed(): void {
    if (!this.closed) this.opts.onChange();
  }

  /**
   * Brings the running remotes in line with the configured ones: new ones connect, removed ones
   * stop (their lockfiles go). `kept`: ssh processes an earlier core ran (the keeper kept them
   * through its restart): a remote configured as it was goes on with its tunnel; the others end.
   */
  sync(configs: readonly RemoteConfig[], kept: readonly OwnedChild[] = []): Promise<void> {
    const run = (): Promise<void> => this.syncNow(configs, kept);
    this.syncing = this.syncing.then(run, run);
    return this.syncing;
  }

  private async syncNow(configs: readonly RemoteConfig[], kept: readonly OwnedChild[]): Promise<void> {
    if (this.closed) return kept.forEach((child) => this.retire(child, 'Patchbay is stopping'));
    const wanted = new Map(configs.map((c) => [c.name, c]));
    const stopping: Promise<void>[] = [];
    for (const [name, link] of this.links) {
      const config = wanted.get(name);
      if (config && JSON.stringify(config) === JSON.stringify(link.config)) continue;
      this.links.delete(name);
      stopping.push(this.stopLink(link));
    }
    await Promise.all(stopping);
    if (this.closed) return;
    const adopting = this.adoptable(configs, kept);
    for (const config of configs) {
      if (this.links.has(config.name)) continue;
      const link = new RemoteLink(config, this);
      link.adopting = adopting.get(config.name) ?? null;
      this.links.set(config.name, link);
      link.dispatch({ type: 'start' });
    }
    this.changed();
  }

  /** The kept tunnels to go on with, by remote; the rest are ended (their helpers remove their lockfiles). */
  private adoptable(configs: readonly RemoteConfig[], kept: readonly OwnedChild[]): Map<string, NonNullable<RemoteLink['adopting']>> {
    const byName = new Map<string, NonNullable<RemoteLink['adopting']>>();
    for (const child of kept) {
      const record = readKeptTunnel(child.kept);
      const config = configs.find((c) => JSON.stringify(c) === JSON.stringify(record?.config));
      if (!record?.up || !config || this.links.has(config.name) || byName.has(config.name)) {
        this.retire(child, !record ? 'what the last core kept of it is unusable' : !record.up ? 'it was not up yet' : 'its remote was changed or removed meanwhile');
        continue;
      }
      byName.set(config.name, { child, up: record.up, tokens: record.tokens });
    }
    return byName;
  }

  /** Ends a kept ssh process: its helper's input closes (it removes its lockfiles and exits), and ssh is terminated after the grace. */
  private retire(child: OwnedChild, why: string): void {
    this.opts.log(`remote tunnel ${child.id} (pid ${child.pid ?? '?'}) from before the restart: ended, as ${why}`);
    const handle = ownedHandle(child, { stdout() {}, stderr() {}, exit() {} });
    handle.endInput();
    setTimeout(() => handle.kill('SIGTERM'), this.opts.stopGraceMs).unref();
  }

  views(): RemoteView[] {
    return [...this.links.values()].flatMap((l) => l.view() ?? []);
  }

  /** Every token the door accepts for a remote now. */
  keys(): RemoteKey[] {
    return [...this.links.values()].flatMap((link) =>
      (Object.entries(link.tokens) as [Dialect, string][]).map(([dialect, token]) => ({ dialect, token, remote: link.name })),
    );
  }

  origin(name: string): RemoteOrigin | null {
    return this.links.get(name) ?? null;
  }

  /** Resolves once the remote is connected or failed (or `ms` passed); its view then, or null when there is no such remote. */
  async settled(name: string, ms: number): Promise<RemoteView | null> {
    const link = this.links.get(name);
    if (!link) return null;
    if (link.state.state === 'connecting') {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          link.settledWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        timer.unref();
        link.settledWaiters.add(done);
      });
    }
    return link.view();
  }

  /** Tunnels (ssh processes) still held: 0 once closed. */
  get resources(): number {
    return [...this.links.values()].filter((l) => l.tunnel !== null || l.retry !== null).length;
  }

  /**
   * A restart of the core: every tunnel runs on for the next core (the keeper owns the ssh
   * processes, and each keeps what the next core needs); nothing here acts any more.
   */
  detach(): void {
    this.closed = true;
    for (const link of this.links.values()) {
      if (link.retry) clearTimeout(link.retry);
      link.retry = null;
      link.tunnel?.detach();
    }
  }

  /** Stops every tunnel; each helper removes its lockfiles first. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map((l) => this.stopLink(l)));
  }

  private stopLink(link: RemoteLink): Promise<void> {
    const tunnel = link.tunnel;
    link.dispatch({ type: 'stop' });
    return tunnel ? tunnel.stop(this.opts.stopGraceMs) : Promise.resolve();
  }

  carryOut(link: RemoteLink, effect: LinkEffect): void {
    switch (effect.type) {
      case 'connect':
        return this.connect(link);
      case 'wait':
        link.retry = setTimeout(() => {
          link.retry = null;
          link.dispatch({ type: 'retry' });
        }, effect.ms);
        link.retry.unref();
        return;
      case 'disconnect':
        if (link.retry) clearTimeout(link.retry);
        link.retry = null;
        link.tokens = {};
        link.claims.clear();
        // Its stop is awaited by whoever asked for it (stopLink).
        link.tunnel = null;
        link.up = null;
        return;
    }
  }

  private connect(link: RemoteLink): void {
    const { config } = link;
    const adopting = link.adopting;
    link.adopting = null;
    const dialects = this.opts.dialects();
    // A tunnel taken over keeps its tokens: they are in the lockfiles agents over there read.
    link.tokens = adopting ? adopting.tokens : Object.fromEntries(dialects.map((d) => [d, newToken()]));
    const folders = config.maps.map((m) => m.remote);
    const tunnel: Tunnel = new Tunnel({
      host: this.opts.host,
      spec: {
        ssh: this.opts.ssh,
        destination: config.destination,
        doorPort: this.opts.doorPort(),
        aliveIntervalS: this.opts.aliveIntervalS,
        aliveCountMax: this.opts.aliveCountMax,
        connectTimeoutS: this.opts.connectTimeoutS,
      },
      env: this.opts.env,
      lockfiles: dialects.flatMap((dialect) => {
        const token = link.tokens[dialect];
        if (token === undefined) return [];
        return [{ dialect, token, body: (pid: number) => serializeLockfile({ pid, workspaceFolders: folders, ideName: DOOR_IDE_NAME, transport: 'ws', authToken: token }) }];
      }),
      forget: link.leftBehind,
      upDeadlineMs: this.opts.upDeadlineMs,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      meta: keptTunnel(config, link.tokens, null),
      // The helper gives up as late as ssh does here (ServerAlive), and a beat more.
      beat: { everyMs: this.opts.aliveIntervalS * 1000, deadS: this.opts.aliveIntervalS * (this.opts.aliveCountMax + 1) },
      onUp: (up) => {
        if (link.tunnel !== tunnel) return;
        link.up = up;
        link.leftBehind = up.lockfiles;
        tunnel.keep(keptTunnel(config, link.tokens, up));
        for (const problem of up.problems) this.opts.log(`remote ${link.name}: ${problem}`);
        this.opts.log(`remote ${link.name}: connected; port ${up.remotePort} over there leads to the door (${up.lockfiles.map((l) => l.path).join(', ')})`);
        link.dispatch({ type: 'up', remotePort: up.remotePort });
      },
      onDown: (reason) => {
        if (link.tunnel !== tunnel) return;
        link.tunnel = null;
        link.up = null;
        link.tokens = {};
        link.claims.clear();
        this.opts.log(`remote ${link.name}: ${reason}`);
        link.dispatch({ type: 'down', reason });
      },
      log: (message) => this.opts.log(`remote ${link.name}: ${message}`),
    });
    link.tunnel = tunnel;
    if (!adopting) return tunnel.start();
    this.opts.log(`remote ${link.name}: going on with the tunnel of before the restart (ssh pid ${adopting.child.pid ?? '?'})`);
    tunnel.adopt(adopting.child, adopting.up);
  }
}
