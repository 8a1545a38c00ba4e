// Who is on the other end of a loopback connection to the door (DESIGN §4): the agent's
// pid from its TCP port, then its folder, command line and start time.
import { execFile } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { platform } from 'node:os';

export interface ProcessInfo {
  pid: number;
  cwd: string | null;
  command: string | null;
  /** Epoch ms. */
  startedAt: number | null;
  /**
   * Its parent, the parent's parent… (at most ANCESTRY_DEPTH, init left out): whose terminal it
   * runs in. Absent when they could not be read.
   */
  ancestors?: number[];
}

/** Parents looked up above an agent; Claude Code looks 10 above its own parent. */
export const ANCESTRY_DEPTH = 16;

/** The chain of parents from `parentOf(pid)` up, stopping at init, a loop, or `ANCESTRY_DEPTH`. */
export async function ancestorsOf(pid: number, parentOf: (pid: number) => Promise<number | null>): Promise<number[]> {
  const chain: number[] = [];
  for (let current = pid; chain.length < ANCESTRY_DEPTH; ) {
    const parent = await parentOf(current);
    if (parent === null || parent <= 1 || parent === pid || chain.includes(parent)) break;
    chain.push(parent);
    current = parent;
  }
  return chain;
}

export interface ProcNetSocket {
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remotePort: number;
  /** Kernel TCP state, hex as in the file (`01` established, `0A` listen). */
  state: string;
  inode: number;
}

/** Four little-endian 32-bit words (the kernel's layout on the hosts Node runs on) → bytes. */
function hexToBytes(hex: string): number[] {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    for (let i = 6; i >= 0; i -= 2) bytes.push(parseInt(hex.slice(word + i, word + i + 2), 16));
  }
  return bytes;
}

/**
 * `/proc/net/tcp{,6}` address → text: dotted IPv4 (also for IPv4-mapped IPv6), or IPv6
 * in the form `new URL` normalizes to (`::1`).
 */
export function decodeProcAddress(hex: string): string {
  const bytes = hexToBytes(hex);
  if (bytes.length === 4) return bytes.join('.');
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

/** One row of `/proc/net/tcp{,6}`; null for the header or a line it cannot read. */
export function parseProcNetLine(line: string): ProcNetSocket | null {
  const fields = line.trim().split(/\s+/);
  const [local, remote, state, inode] = [fields[1], fields[2], fields[3], fields[9]];
  if (!local || !remote || !state || !inode) return null;
  const [localHex, localPortHex] = local.split(':');
  const [remoteHex, remotePortHex] = remote.split(':');
  if (!localHex || !localPortHex || !remoteHex || !remotePortHex) return null;
  if (![8, 32].includes(localHex.length) || localHex.length !== remoteHex.length) return null;
  return {
    localAddress: decodeProcAddress(localHex),
    localPort: parseInt(localPortHex, 16),
    remoteAddress: decodeProcAddress(remoteHex),
    remotePort: parseInt(remotePortHex, 16),
    state,
    inode: Number(inode),
  };
}

/** Parses `/proc/net/tcp` or `/proc/net/tcp6`; lines it cannot read are skipped. */
export function parseProcNetTcp(text: string): ProcNetSocket[] {
  const sockets: ProcNetSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const socket = parseProcNetLine(line);
    if (socket) sockets.push(socket);
  }
  return sockets;
}

/** `:1B58 `: a port as `/proc/net/tcp` prints it after an address, space included. */
function procPortNeedle(port: number): string {
  return `:${port.toString(16).toUpperCase().padStart(4, '0')} `;
}

function socketInode(link: string): number {
  const match = /^socket:\[(\d+)\]$/.exec(link);
  return match ? Number(match[1]) : -1;
}

function isGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'EACCES' || code === 'EPERM' || code === 'ESRCH';
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if (isGone(err)) return null;
    throw err;
  }
}

/** What a /proc scan reads; tests count or fake it. */
export interface ProcReader {
  /** Hands over each line of a file in turn, without holding the whole file; false if it does not exist. */
  eachLine(path: string, onLine: (line: string) => void): Promise<boolean>;
  /** The pids listed in /proc. */
  pids(): Promise<number[]>;
  /** Where a process's fds point (`socket:[123]`, paths); empty when it is gone or not ours to see. */
  fdTargets(pid: number): Promise<string[]>;
  /** Every visible process → its parent. */
  parents(): Promise<Map<number, number>>;
}

/** Bytes read from a /proc/net table at a time: a few hundred rows. */
const TABLE_CHUNK = 64 * 1024;

/**
 * Each line of a /proc/net table, read synchronously: the kernel writes it as it is read (no
 * disk, nothing to wait for; ~1.5 ms for 850 sockets), one page per read. Read asynchronously,
 * a busy machine's table was some thirty waits in a row, each behind whatever big frame the
 * relay was busy with: a new editor's listing waited on them.
 */
async function eachLine(path: string, onLine: (line: string) => void): Promise<boolean> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if (isGone(err)) return false;
    throw err;
  }
  try {
    const buffer = Buffer.allocUnsafe(TABLE_CHUNK);
    let rest = '';
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const text = rest + buffer.toString('latin1', 0, bytesRead);
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        onLine(text.slice(start, end));
        start = end + 1;
      }
      rest = text.slice(start);
    }
    if (rest !== '') onLine(rest);
    return true;
  } finally {
    closeSync(fd);
  }
}

const liveProc: ProcReader = {
  eachLine,
  pids: async () => (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number),
  async fdTargets(pid) {
    let fds: string[];
    try {
      fds = await readdir(`/proc/${pid}/fd`);
    } catch {
      return []; // another user's process, or gone: not ours to see
    }
    // An fd closed between readdir and readlink is simply not a match.
    return Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  },
  async parents() {
    const pids = await liveProc.pids();
    const stats = await Promise.all(pids.map((pid) => readOptional(`/proc/${pid}/stat`).catch(() => null)));
    const parents = new Map<number, number>();
    for (const [i, stat] of stats.entries()) {
      const parent = stat === null ? null : parentFromStat(stat);
      if (parent !== null) parents.set(pids[i]!, parent);
    }
    return parents;
  },
};

/** A lookup: the door's port (local to Patchbay) and the agent's port (its remote). */
export interface PeerQuery {
  localPort: number;
  remotePort: number;
}

/**
 * Per query: the agent's pid; null when its socket was seen but no process could be named;
 * `'unseen'` when the socket was not in the table (yet: a lookup right after accept may race).
 */
export type PeerAnswer = number | null | 'unseen';

/** Answers many lookups with one look at the system. */
export type PeerScan = (queries: readonly PeerQuery[]) => Promise<PeerAnswer[]>;

const PROC_TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];

/**
 * The agent sides of the queried connections: socket inode → indexes of the queries it
 * answers. Only rows that mention a door's port are decoded.
 */
async function agentSockets(reader: ProcReader, queries: readonly PeerQuery[]): Promise<Map<number, number[]>> {
  const wanted = new Map<string, number[]>();
  for (const [i, q] of queries.entries()) {
    const key = `${q.localPort}:${q.remotePort}`;
    wanted.set(key, [...(wanted.get(key) ?? []), i]);
  }
  const needles = [...new Set(queries.map((q) => procPortNeedle(q.localPort)))];
  const inodes = new Map<number, number[]>();
  const onLine = (line: string): void => {
    if (!needles.some((needle) => line.includes(needle))) return;
    const socket = parseProcNetLine(line);
    if (!socket || socket.inode <= 0) return;
    // The agent's side: its ephemeral port locally, the door's port remotely.
    const indexes = wanted.get(`${socket.remotePort}:${socket.localPort}`);
    if (indexes) inodes.set(socket.inode, indexes);
  };
  await Promise.all(PROC_TABLES.map((path) => reader.eachLine(path, onLine)));
  return inodes;
}

/** Processes looked at concurrently: enough to hide latency, few enough to stop early. */
const PID_BATCH = 16;

/** Socket inode → the first process found holding it, other processes before our own. */
async function socketHolders(reader: ProcReader, inodes: ReadonlySet<number>): Promise<Map<number, number>> {
  const holders = new Map<number, number>();
  // Newest first (agents usually started recently); our own pid last: the door's side
  // lives here, the agent elsewhere (except in tests).
  const pids = (await reader.pids()).sort((a, b) => b - a);
  pids.sort((a, b) => Number(a === process.pid) - Number(b === process.pid));
  for (let start = 0; start < pids.length && holders.size < inodes.size; start += PID_BATCH) {
    const batch = pids.slice(start, start + PID_BATCH);
    const targets = await Promise.all(batch.map((pid) => reader.fdTargets(pid)));
    for (const [i, pid] of batch.entries()) {
      for (const target of targets[i]!) {
        const inode = socketInode(target);
        if (inodes.has(inode) && !holders.has(inode)) holders.set(inode, pid);
      }
    }
  }
  return holders;
}

/** Linux: one pass over `/proc/net/tcp{,6}`, then one walk of `/proc/<pid>/fd` for all queries. */
export function procScan(reader: ProcReader = liveProc): PeerScan {
  return async (queries) => {
    const answers: PeerAnswer[] = queries.map(() => 'unseen');
    const sockets = await agentSockets(reader, queries);
    if (sockets.size === 0) return answers;
    const holders = await socketHolders(reader, new Set(sockets.keys()));
    for (const [inode, indexes] of sockets) {
      const pid = holders.get(inode) ?? null;
      // A query may match sockets on two addresses (IPv4 and IPv6); any holder answers it.
      for (const i of indexes) if (typeof answers[i] !== 'number') answers[i] = pid;
    }
    return answers;
  };
}

/**
 * Who serves a lockfile's port, as far as its pid is concerned: `pid` (the pid itself or a
 * process descended from it, as VS Code's extension host is from the pid in its lockfile),
 * `other` (something else listens there), `none` (nothing listens), or null when this machine
 * cannot tell (no /proc). Decided before the lockfile's token is sent anywhere: a port held
 * by a stranger never sees it.
 */
export type PortHolder = 'pid' | 'other' | 'none' | null;

/** `/proc/<pid>/stat` → its parent's pid; null when it cannot be read. */
export function parentFromStat(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

/** `pid` and every process descended from it that this user can see, pid first. */
async function familyOf(pid: number, reader: ProcReader): Promise<number[]> {
  const parents = await reader.parents();
  const children = new Map<number, number[]>();
  for (const [child, parent] of parents) children.set(parent, [...(children.get(parent) ?? []), child]);
  const family = [pid];
  for (let i = 0; i < family.length; i++) family.push(...(children.get(family[i]!) ?? []));
  return family;
}

/** Linux: the LISTEN rows of `port` in `/proc/net/tcp{,6}`, then the fds of `pid` and its descendants. */
export async function portHeldBy(port: number, pid: number, reader: ProcReader = liveProc): Promise<PortHolder> {
  if (reader === liveProc && platform() !== 'linux') return platform() === 'darwin' ? portHeldByMac(port, pid) : null;
  try {
    const needle = procPortNeedle(port);
    const listening = new Set<number>();
    const onLine = (line: string): void => {
      if (!line.includes(needle)) return;
      const socket = parseProcNetLine(line);
      if (socket && socket.state === '0A' && socket.localPort === port && socket.inode > 0) listening.add(socket.inode);
    };
    const seen = await Promise.all(PROC_TABLES.map((path) => reader.eachLine(path, onLine)));
    if (!seen.some(Boolean)) return null;
    if (listening.size === 0) return 'none';
    const holds = async (member: number): Promise<boolean> => (await reader.fdTargets(member)).some((target) => listening.has(socketInode(target)));
    // The pid itself first (most editors); its descendants only when it does not.
    if (await holds(pid)) return 'pid';
    for (const member of (await familyOf(pid, reader)).slice(1)) if (await holds(member)) return 'pid';
    return 'other';
  } catch {
    return null;
  }
}

/** macOS: lsof names the listener; ps walks up from it looking for `pid`. */
async function portHeldByMac(port: number, pid: number): Promise<PortHolder> {
  const output = await run('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fp']);
  if (output === null) return null;
  const listeners = output.split('\n').flatMap((line) => (line.startsWith('p') ? [Number(line.slice(1))] : []));
  if (listeners.length === 0) return 'none';
  for (let current of listeners) {
    for (let depth = 0; depth < 64 && current > 1; depth++) {
      if (current === pid) return 'pid';
      const parent = Number((await run('ps', ['-o', 'ppid=', '-p', String(current)]))?.trim());
      if (!Number.isInteger(parent) || parent === current) break;
      current = parent;
    }
  }
  return 'other';
}

function run(command: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 3000, env: { ...process.env, LC_ALL: 'C' } }, (err, stdout) => {
      // lsof and ps exit 1 when nothing matches; that is an answer, not a failure.
      resolve(err && !stdout ? null : stdout);
    });
  });
}

/** The port after the last `:` of an lsof address (`127.0.0.1:52345`, `[::1]:52345`). */
function portOf(address: string): number | null {
  const colon = address.lastIndexOf(':');
  if (colon < 0) return null;
  const port = Number(address.slice(colon + 1));
  return Number.isInteger(port) ? port : null;
}

/**
 * Reads `lsof -F pn` output: `p<pid>` starts a process, `n<local>-><remote>` names a socket.
 * Returns the pid whose socket goes from `remotePort` to `localPort`.
 */
export function parseLsofPeer(output: string, localPort: number, remotePort: number): number | null {
  let pid: number | null = null;
  const found: number[] = [];
  for (const line of output.split('\n')) {
    if (line.startsWith('p')) pid = Number(line.slice(1)) || null;
    else if (line.startsWith('n') && pid !== null) {
      const [from, to] = line.slice(1).split('->');
      if (from && to && portOf(from) === remotePort && portOf(to) === localPort) found.push(pid);
    }
  }
  return found.find((p) => p !== process.pid) ?? found[0] ?? null;
}

/** macOS: one `lsof` for every agent port queried. lsof cannot tell "no socket" from "no process". */
export const lsofScan: PeerScan = async (queries) => {
  const ports = [...new Set(queries.map((q) => q.remotePort))].join(',');
  const output = await run('lsof', ['-nP', `-iTCP:${ports}`, '-sTCP:ESTABLISHED', '-Fpn']);
  return queries.map((q) => (output === null ? null : parseLsofPeer(output, q.localPort, q.remotePort)) ?? 'unseen');
};

/** How long a first lookup waits for others to share its scan: agents often arrive together. */
const BATCH_WINDOW_MS = 5;

interface Waiting {
  query: PeerQuery;
  retried: boolean;
  resolve: (pid: number | null) => void;
  reject: (err: Error) => void;
}

/**
 * Coalesces lookups: those that arrive while a scan is scheduled share it; those that arrive
 * during a scan share the next one. A socket the scan did not see is looked for once more.
 * Its only resource is the window's timer, which always runs out on its own.
 */
export class PeerFinder {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;
  private scanning = false;

  constructor(
    private readonly scan: PeerScan,
    private readonly windowMs = BATCH_WINDOW_MS,
  ) {}

  find(localPort: number, remotePort: number): Promise<number | null> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ query: { localPort, remotePort }, retried: false, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scanning || this.timer !== null || this.waiting.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runBatch();
    }, this.windowMs);
  }

  private async runBatch(): Promise<void> {
    const batch = this.waiting.splice(0);
    this.scanning = true;
    try {
      const answers = await this.scan(batch.map((w) => w.query));
      for (const [i, w] of batch.entries()) {
        const answer = answers[i] === undefined ? 'unseen' : answers[i];
        if (answer !== 'unseen') w.resolve(answer);
        else if (w.retried) w.resolve(null);
        else this.waiting.push({ ...w, retried: true });
      }
    } catch (err) {
      const problem = new Error(`looking up ${batch.length} agent process(es) by TCP port: ${(err as Error).message}`, { cause: err });
      for (const w of batch) w.reject(problem);
    } finally {
      this.scanning = false;
      this.schedule();
    }
  }
}

let defaultFinder: PeerFinder | null | undefined;

function platformFinder(): PeerFinder | null {
  if (defaultFinder !== undefined) return defaultFinder;
  const os = platform();
  defaultFinder = os === 'linux' ? new PeerFinder(procScan()) : os === 'darwin' ? new PeerFinder(lsofScan) : null;
  return defaultFinder;
}

/** The pid of the process on the other end of the door connection from `remotePort`. */
export async function findPeerPid(localPort: number, remotePort: number): Promise<number | null> {
  return (await platformFinder()?.find(localPort, remotePort)) ?? null;
}

/** Read once: many lookups at once would otherwise each read `/proc/stat`. */
let bootTimeSeconds: Promise<number | null> | null = null;

function bootTime(): Promise<number | null> {
  bootTimeSeconds ??= readOptional('/proc/stat').then(
    (stat) => {
      const match = stat ? /^btime (\d+)$/m.exec(stat) : null;
      return match ? Number(match[1]) : null;
    },
    (err: Error) => {
      bootTimeSeconds = null; // a later call may have better luck
      throw new Error(`/proc/stat: ${err.message}`, { cause: err });
    },
  );
  return bootTimeSeconds;
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks); `comm` may hold spaces and `)`. */
export function startTicksFromStat(stat: string): number | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const fields = stat.slice(close + 1).trim().split(/\s+/);
  const ticks = Number(fields[22 - 3]); // fields after `comm` start at field 3
  return Number.isFinite(ticks) ? ticks : null;
}

/** `/proc/<pid>/cmdline` (NUL-terminated arguments) → argv. */
export function argvFromCmdline(cmdline: string): string[] {
  const args = cmdline.split('\0');
  // One NUL ends the last argument; a process that set its title (pi does) pads with many.
  while (args.length > 0 && args[args.length - 1] === '') args.pop();
  return args;
}

/** `/proc/<pid>/cmdline` → the command line, arguments joined by spaces. */
export function commandFromCmdline(cmdline: string): string | null {
  const args = argvFromCmdline(cmdline);
  return args.length > 0 ? args.join(' ') : null;
}

/** Linux's USER_HZ: 100 on every architecture Node supports. */
const CLOCK_TICKS = 100;

async function parentLinux(pid: number): Promise<number | null> {
  const stat = await readOptional(`/proc/${pid}/stat`).catch(() => null);
  return stat === null ? null : parentFromStat(stat);
}

async function processInfoLinux(pid: number): Promise<ProcessInfo | null> {
  const stat = await readOptional(`/proc/${pid}/stat`);
  if (stat === null) return null;
  const [cwd, cmdline, boot, ancestors] = await Promise.all([
    readlink(`/proc/${pid}/cwd`).catch(() => null),
    readOptional(`/proc/${pid}/cmdline`),
    bootTime(),
    ancestorsOf(pid, parentLinux),
  ]);
  const ticks = startTicksFromStat(stat);
  return {
    pid,
    cwd,
    command: cmdline === null ? null : commandFromCmdline(cmdline),
    startedAt: ticks === null || boot === null ? null : Math.round((boot + ticks / CLOCK_TICKS) * 1000),
    ancestors,
  };
}

/** `ps -o lstart=,command=` → start time (epoch ms, local time) and command. */
export function parsePsLine(line: string): { startedAt: number | null; command: string | null } {
  const match = /^\s*(\w{3}\s+\w{3}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}\s+\d{4})\s+(.*)$/.exec(line.trimEnd());
  if (!match) return { startedAt: null, command: line.trim() || null };
  const startedAt = Date.parse(match[1]!.replace(/\s+/g, ' '));
  return { startedAt: Number.isNaN(startedAt) ? null : startedAt, command: match[2] || null };
}

/** `lsof -Fn` → the first name field (for `-d cwd`, the folder). */
export function parseLsofName(output: string): string | null {
  const line = output.split('\n').find((l) => l.startsWith('n'));
  return line ? line.slice(1) : null;
}

/** `ps -A -o pid=,ppid=` → every process's parent. */
export function parsePsParents(output: string): Map<number, number> {
  const parents = new Map<number, number>();
  for (const line of output.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (Number.isInteger(pid) && Number.isInteger(ppid)) parents.set(pid!, ppid!);
  }
  return parents;
}

async function processInfoMac(pid: number): Promise<ProcessInfo | null> {
  const [ps, lsof, table] = await Promise.all([
    run('ps', ['-o', 'lstart=,command=', '-p', String(pid)]),
    run('lsof', ['-a', '-p', String(pid), '-d', 'cwd', '-Fn']),
    run('ps', ['-A', '-o', 'pid=,ppid=']),
  ]);
  const line = ps?.split('\n').find((l) => l.trim() !== '');
  if (!line) return null;
  const { startedAt, command } = parsePsLine(line);
  const parents = table === null ? null : parsePsParents(table);
  const ancestors = parents === null ? undefined : await ancestorsOf(pid, async (p) => parents.get(p) ?? null);
  return { pid, cwd: lsof === null ? null : parseLsofName(lsof), command, startedAt, ...(ancestors ? { ancestors } : {}) };
}

/** Lookups under way by pid: agents sharing a process (or one asked about twice) read it once. */
const infoInFlight = new Map<number, Promise<ProcessInfo | null>>();

function readProcessInfo(pid: number): Promise<ProcessInfo | null> {
  const os = platform();
  if (os === 'linux') return processInfoLinux(pid);
  if (os === 'darwin') return processInfoMac(pid);
  return Promise.resolve(null);
}

/** What a pid is: folder, command line, start time; null when there is no such process. */
export async function processInfo(pid: number): Promise<ProcessInfo | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  let pending = infoInFlight.get(pid);
  if (!pending) {
    pending = readProcessInfo(pid).finally(() => infoInFlight.delete(pid));
    infoInFlight.set(pid, pending);
  }
  const info = await pending;
  return info && { ...info }; // each caller owns its copy
}
