// Who is on the other end of a loopback connection to the door (DESIGN §4): the agent's
// pid from its TCP port, then its folder, command line and start time.
import { execFile } from 'node:child_process';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { platform } from 'node:os';

export interface ProcessInfo {
  pid: number;
  cwd: string | null;
  command: string | null;
  /** Epoch ms. */
  startedAt: number | null;
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

/** Parses `/proc/net/tcp` or `/proc/net/tcp6`; lines it cannot read are skipped. */
export function parseProcNetTcp(text: string): ProcNetSocket[] {
  const sockets: ProcNetSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [local, remote, state, inode] = [fields[1], fields[2], fields[3], fields[9]];
    if (!local || !remote || !state || !inode) continue;
    const [localHex, localPortHex] = local.split(':');
    const [remoteHex, remotePortHex] = remote.split(':');
    if (!localHex || !localPortHex || !remoteHex || !remotePortHex) continue;
    if (![8, 32].includes(localHex.length) || localHex.length !== remoteHex.length) continue;
    sockets.push({
      localAddress: decodeProcAddress(localHex),
      localPort: parseInt(localPortHex, 16),
      remoteAddress: decodeProcAddress(remoteHex),
      remotePort: parseInt(remotePortHex, 16),
      state,
      inode: Number(inode),
    });
  }
  return sockets;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM' || code === 'ESRCH') return null;
    throw err;
  }
}

async function numericDirs(path: string): Promise<number[]> {
  const names = await readdir(path);
  return names.filter((name) => /^\d+$/.test(name)).map(Number);
}

async function holdsSocket(pid: number, inodes: Set<number>): Promise<boolean> {
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch {
    return false; // another user's process, or gone: not ours to see
  }
  // An fd closed between readdir and readlink is simply not a match.
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return links.some((target) => inodes.has(socketInode(target)));
}

/** Processes looked at concurrently: enough to hide latency, few enough to stop early. */
const PID_BATCH = 16;

/** The pids holding any of these socket inodes (other processes first, ours last). */
async function pidsHoldingSockets(inodes: Set<number>): Promise<number[]> {
  const found: number[] = [];
  // Newest first (agents usually started recently); our own pid last: the door's side
  // lives here, the agent elsewhere (except in tests).
  const pids = (await numericDirs('/proc')).sort((a, b) => b - a);
  pids.sort((a, b) => Number(a === process.pid) - Number(b === process.pid));
  for (let start = 0; start < pids.length; start += PID_BATCH) {
    const batch = pids.slice(start, start + PID_BATCH);
    const holds = await Promise.all(batch.map((pid) => holdsSocket(pid, inodes)));
    for (const [i, pid] of batch.entries()) if (holds[i]) found.push(pid);
    if (found.some((pid) => pid !== process.pid)) break;
  }
  return found;
}

function socketInode(link: string): number {
  const match = /^socket:\[(\d+)\]$/.exec(link);
  return match ? Number(match[1]) : -1;
}

async function findPeerPidLinux(localPort: number, remotePort: number): Promise<number | null> {
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map(readOptional));
  const inodes = new Set<number>();
  for (const table of tables) {
    if (table === null) continue;
    for (const socket of parseProcNetTcp(table)) {
      // The agent's side: its ephemeral port locally, the door's port remotely.
      if (socket.localPort === remotePort && socket.remotePort === localPort && socket.inode > 0) {
        inodes.add(socket.inode);
      }
    }
  }
  if (inodes.size === 0) return null;
  const pids = await pidsHoldingSockets(inodes);
  return pids.find((pid) => pid !== process.pid) ?? pids[0] ?? null;
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

/** The pid of the process on the other end of the door connection from `remotePort`. */
export async function findPeerPid(localPort: number, remotePort: number): Promise<number | null> {
  const os = platform();
  if (os === 'linux') return findPeerPidLinux(localPort, remotePort);
  if (os === 'darwin') {
    const output = await run('lsof', ['-nP', `-iTCP:${remotePort}`, '-sTCP:ESTABLISHED', '-Fpn']);
    return output === null ? null : parseLsofPeer(output, localPort, remotePort);
  }
  return null;
}

let bootTimeSeconds: number | null = null;

async function bootTime(): Promise<number | null> {
  if (bootTimeSeconds !== null) return bootTimeSeconds;
  const stat = await readOptional('/proc/stat');
  const match = stat ? /^btime (\d+)$/m.exec(stat) : null;
  bootTimeSeconds = match ? Number(match[1]) : null;
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
  if (args[args.length - 1] === '') args.pop();
  return args;
}

/** `/proc/<pid>/cmdline` → the command line, arguments joined by spaces. */
export function commandFromCmdline(cmdline: string): string | null {
  const args = argvFromCmdline(cmdline);
  return args.length > 0 ? args.join(' ') : null;
}

/** Linux's USER_HZ: 100 on every architecture Node supports. */
const CLOCK_TICKS = 100;

async function processInfoLinux(pid: number): Promise<ProcessInfo | null> {
  const stat = await readOptional(`/proc/${pid}/stat`);
  if (stat === null) return null;
  const [cwd, cmdline, boot] = await Promise.all([
    readlink(`/proc/${pid}/cwd`).catch(() => null),
    readOptional(`/proc/${pid}/cmdline`),
    bootTime(),
  ]);
  const ticks = startTicksFromStat(stat);
  return {
    pid,
    cwd,
    command: cmdline === null ? null : commandFromCmdline(cmdline),
    startedAt: ticks === null || boot === null ? null : Math.round((boot + ticks / CLOCK_TICKS) * 1000),
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

async function processInfoMac(pid: number): Promise<ProcessInfo | null> {
  const [ps, lsof] = await Promise.all([
    run('ps', ['-o', 'lstart=,command=', '-p', String(pid)]),
    run('lsof', ['-a', '-p', String(pid), '-d', 'cwd', '-Fn']),
  ]);
  const line = ps?.split('\n').find((l) => l.trim() !== '');
  if (!line) return null;
  const { startedAt, command } = parsePsLine(line);
  return { pid, cwd: lsof === null ? null : parseLsofName(lsof), command, startedAt };
}

/** What a pid is: folder, command line, start time; null when there is no such process. */
export async function processInfo(pid: number): Promise<ProcessInfo | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const os = platform();
  if (os === 'linux') return processInfoLinux(pid);
  if (os === 'darwin') return processInfoMac(pid);
  return null;
}
