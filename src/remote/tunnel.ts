// One connection to a remote: an ssh process forwarding a remote loopback port to the door,
// running the helper (helper.ts) that writes the door's lockfiles over there. Up once the server
// has allocated the port and the helper has written them; down when ssh ends, saying why.
import type { Dialect } from '../api/types.ts';
import type { OwnedChild } from '../core/host.ts';
import { ownedHandle, type ChildEvents, type ChildHandle, type ChildHost } from './child-host.ts';
import { BOOTSTRAP, HELPER_PROTOCOL, HELPER_SCRIPT, parseHelperLine, writeLine, type HelperLine } from './helper.ts';
import { allocatedPort, sshArgs, whatToFix, type SshTunnelSpec } from './ssh.ts';

/** A lockfile the helper wrote (or is to forget): where, and the token that makes it ours. */
export interface RemoteLockfile {
  dialect: Dialect;
  port: number;
  token: string;
  path: string;
}

export interface TunnelUp {
  remotePort: number;
  helperPid: number;
  lockfiles: RemoteLockfile[];
  /** Lock dirs the helper could not write to, and why. */
  problems: string[];
}

/** An agent's connection to the forwarded port, as the remote's /proc shows it. */
export interface RemoteConnection {
  agentPort: number;
  pid: number;
  inode: number;
}

export interface TunnelOptions {
  host: ChildHost;
  spec: Omit<SshTunnelSpec, 'remoteCommand'>;
  env: NodeJS.ProcessEnv;
  /** Which lock dirs get a lockfile, with what token and what it says (its pid is the helper's). */
  lockfiles: { dialect: Dialect; token: string; body: (pid: number) => string }[];
  /** What an earlier tunnel of this remote wrote: removed over there if it is still there. */
  forget: readonly Omit<RemoteLockfile, 'path'>[];
  /** Not up this long after starting: given up. */
  upDeadlineMs: number;
  /** What a next core needs to take it over, kept with the ssh process (see keep). */
  meta?: unknown;
  /** Each request to the helper must be answered this soon. */
  requestTimeoutMs: number;
  /** Patchbay tells the helper it is there every `everyMs`; a helper that hears nothing for `deadS` ends (helper.ts). */
  beat: { everyMs: number; deadS: number };
  onUp(up: TunnelUp): void;
  /** Once: it ended (before or after it was up), and why, for the person. */
  onDown(reason: string): void;
  log(message: string): void;
}

/** Stderr lines kept to say why ssh ended. */
const STDERR_LINES = 40;

interface Pending {
  lines: HelperLine[];
  resolve(lines: HelperLine[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class Tunnel {
  private child: ChildHandle | null = null;
  private readonly stderr: string[] = [];
  private remotePort: number | null = null;
  private helperPid: number | null = null;
  private readonly written: RemoteLockfile[] = [];
  private readonly problems: string[] = [];
  private answered = new Set<Dialect>();
  private up = false;
  private down = false;
  private deadline: NodeJS.Timeout | null = null;
  private beats: NodeJS.Timeout | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Request numbers start past any an earlier core's use of the same helper (its answers may still come). */
  private seq = Date.now() * 1000;
  private exited: Promise<void>;
  private markExited!: () => void;
  /** Why Patchbay itself ended it, when it did (the person's stop, a deadline). */
  private endedBecause: string | null = null;

  constructor(private readonly opts: TunnelOptions) {
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  private readonly events: ChildEvents = {
    stdout: (line) => this.onStdout(line),
    stderr: (line) => this.onStderr(line),
    exit: (exit) => this.onExit(exit),
  };

  start(): void {
    const { spec } = this.opts;
    this.child = this.opts.host.start({ command: spec.ssh, args: sshArgs({ ...spec, remoteCommand: BOOTSTRAP }), env: this.opts.env, meta: this.opts.meta }, this.events);
    // ssh holds it until the session starts; the script never appears on a command line.
    this.child.write(`${HELPER_SCRIPT}`);
    this.deadline = setTimeout(() => {
      this.endedBecause = `no answer from ${spec.destination} within ${Math.round(this.opts.upDeadlineMs / 1000)} s`;
      this.child?.kill('SIGTERM');
    }, this.opts.upDeadlineMs);
    this.deadline.unref();
  }

  /**
   * Goes on with a tunnel an earlier core started and the keeper kept running: up as it was (its
   * port, its helper, the lockfiles over there), told to Patchbay's beats again at once.
   */
  adopt(child: OwnedChild, up: TunnelUp): void {
    this.child = ownedHandle(child, this.events);
    this.remotePort = up.remotePort;
    this.helperPid = up.helperPid;
    this.written.push(...up.lockfiles);
    this.problems.push(...up.problems);
    this.up = true;
    this.startBeats();
    this.opts.onUp(up);
  }

  /** Replaces what a next core gets of the ssh process. */
  keep(meta: unknown): void {
    this.child?.keep?.(meta);
  }

  /**
   * A restart of the core: the ssh process runs on for the next core (the keeper owns it); this
   * one stops beating and waiting. Its output goes to the next core from now on.
   */
  detach(): void {
    this.down = true;
    this.quiet('Patchbay is restarting');
  }

  /** No more beats or deadlines; requests still waiting fail with `why`. */
  private quiet(why: string): void {
    if (this.deadline) clearTimeout(this.deadline);
    if (this.beats) clearInterval(this.beats);
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new Error(why));
    }
    this.pending.clear();
  }

  /** Agents connected to the forwarded port over there (empty where the remote has no /proc). */
  async connections(): Promise<RemoteConnection[]> {
    if (this.remotePort === null) return [];
    const lines = await this.request(`who %s ${this.remotePort}`);
    return lines.flatMap((l) => (l.kind === 'conn' ? [{ agentPort: l.agentPort, pid: l.pid, inode: l.inode }] : []));
  }

  /** A remote process's folder and command line (null fields where they cannot be read). */
  async process(pid: number): Promise<{ cwd: string | null; command: string | null }> {
    const lines = await this.request(`proc %s ${pid}`);
    let cwd: string | null = null;
    let command: string | null = null;
    for (const l of lines) {
      if (l.kind === 'cwd') cwd = l.path;
      if (l.kind === 'cmd') command = l.command;
    }
    return { cwd, command };
  }

  /**
   * A file over there, read up to `maxBytes` (the review of a file no map covers): its bytes,
   * `missing`, `too-large`, or `unread` (not a regular file, not readable, a kernel file).
   */
  async readFile(path: string, maxBytes: number): Promise<{ kind: 'bytes'; bytes: Buffer } | { kind: 'missing' | 'too-large' | 'unread' }> {
    if (!path.startsWith('/') || /[\0\r\n]/.test(path)) return { kind: 'unread' };
    const lines = await this.request(`get %s ${Math.max(0, Math.floor(maxBytes))} - ${path}`);
    if (lines.some((l) => l.kind === 'gone')) return { kind: 'missing' };
    if (lines.some((l) => l.kind === 'big')) return { kind: 'too-large' };
    if (!lines.some((l) => l.kind === 'file')) return { kind: 'unread' };
    const data = lines.flatMap((l) => (l.kind === 'data' ? [l.base64] : []));
    return { kind: 'bytes', bytes: Buffer.from(data.join(''), 'base64') };
  }

  /**
   * Ends it: the helper's stdin closes, so it removes its lockfiles and exits, and ssh with it;
   * after `graceMs` ssh is terminated. Resolves once ssh has exited. Safe to call twice.
   */
  async stop(graceMs: number): Promise<void> {
    this.endedBecause ??= 'stopped';
    const child = this.child;
    if (!child) return;
    if (this.beats) clearInterval(this.beats);
    child.endInput();
    const timer = (ms: number, then: () => void): NodeJS.Timeout => {
      const t = setTimeout(then, ms);
      t.unref();
      return t;
    };
    const term = timer(graceMs, () => child.kill('SIGTERM'));
    const kill = timer(graceMs * 2, () => child.kill('SIGKILL'));
    await this.exited;
    clearTimeout(term);
    clearTimeout(kill);
  }

  private request(template: string): Promise<HelperLine[]> {
    if (!this.up || this.down || !this.child) return Promise.reject(new Error('the tunnel is not up'));
    const req = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(req);
        reject(new Error(`the remote helper did not answer within ${this.opts.requestTimeoutMs} ms`));
      }, this.opts.requestTimeoutMs);
      timer.unref();
      this.pending.set(req, { lines: [], resolve, reject, timer });
      this.child!.write(`${template.replace('%s', String(req))}\n`);
    });
  }

  private onStderr(line: string): void {
    const port = allocatedPort(line);
    if (port !== null && this.remotePort === null) {
      this.remotePort = port;
      this.writeLockfiles();
    }
    this.stderr.push(line);
    if (this.stderr.length > STDERR_LINES) this.stderr.shift();
  }

  private onStdout(text: string): void {
    const line = parseHelperLine(text);
    if (line === null) return;
    switch (line.kind) {
      case 'hello':
        if (line.protocol !== HELPER_PROTOCOL) {
          this.endedBecause = `the remote helper speaks protocol ${line.protocol}, not ${HELPER_PROTOCOL}`;
          this.child?.kill('SIGTERM');
          return;
        }
        this.helperPid = line.pid;
        this.startBeats();
        this.writeLockfiles();
        return;
      case 'dir':
        return;
      case 'wrote': {
        const want = this.opts.lockfiles.find((l) => l.dialect === line.dialect);
        if (want && this.remotePort !== null) this.written.push({ dialect: line.dialect, port: this.remotePort, token: want.token, path: line.path });
        this.answered.add(line.dialect);
        return this.maybeUp();
      }
      case 'error':
        this.problems.push(`${line.dialect} lock dir: ${line.reason}`);
        this.answered.add(line.dialect);
        return this.maybeUp();
      default: {
        const pending = this.pending.get(line.req);
        if (!pending) return;
        if (line.kind !== 'done') {
          pending.lines.push(line);
          return;
        }
        clearTimeout(pending.timer);
        this.pending.delete(line.req);
        pending.resolve(pending.lines);
      }
    }
  }

  /** Once the port and the helper's pid are both known: forget what an earlier tunnel left, write the lockfiles. */
  private writeLockfiles(): void {
    if (this.remotePort === null || this.helperPid === null || !this.child) return;
    for (const old of this.opts.forget) this.child.write(`forget ${old.dialect} ${old.port} ${old.token}\n`);
    for (const lock of this.opts.lockfiles) this.child.write(writeLine(lock.dialect, this.remotePort, lock.token, lock.body(this.helperPid)));
    if (this.opts.lockfiles.length === 0) this.maybeUp();
  }

  private maybeUp(): void {
    if (this.up || this.down || this.remotePort === null || this.helperPid === null) return;
    if (this.opts.lockfiles.some((l) => !this.answered.has(l.dialect))) return;
    if (this.written.length === 0 && this.opts.lockfiles.length > 0) {
      // No agent over there could find the door: not a tunnel worth keeping.
      this.endedBecause = `no lockfile could be written over there: ${this.problems.join('; ')}`;
      this.child?.kill('SIGTERM');
      return;
    }
    this.up = true;
    if (this.deadline) clearTimeout(this.deadline);
    this.opts.onUp({ remotePort: this.remotePort, helperPid: this.helperPid, lockfiles: [...this.written], problems: [...this.problems] });
  }

  private startBeats(): void {
    const beat = (): void => this.child?.write(`beat ${this.opts.beat.deadS}\n`);
    beat();
    this.beats = setInterval(beat, this.opts.beat.everyMs);
    this.beats.unref();
  }

  private onExit(exit: { code: number | null; signal: string | null; spawnError?: string }): void {
    this.quiet('the tunnel closed');
    this.markExited();
    if (this.down) return;
    this.down = true;
    const said = whatToFix(this.stderr, exit, this.opts.spec.destination);
    // What ssh said when it is something to fix; else why Patchbay ended it, when it did.
    this.opts.onDown(said.known || this.endedBecause === null ? said.reason : this.endedBecause);
  }
}
