// Running pi agents, connected or not (DESIGN §4): the hub lists the ones that never reached
// the door, with the likely reason why.
import { execFile } from 'node:child_process';
import { readdirSync, statSync, type Stats } from 'node:fs';
import { readFile, readlink } from 'node:fs/promises';
import { platform } from 'node:os';
import { basename } from 'node:path';
import { argvFromCmdline, commandFromCmdline, processInfo } from './peer-process.ts';

export interface PiProcess {
  pid: number;
  cwd: string | null;
  command: string;
}

/** Node options whose value is the next argument (the rest use `--opt=value` or none). */
const NODE_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--title',
  '--input-type',
  '--env-file',
]);
const NODE_EVAL_OPTIONS = new Set(['-e', '--eval', '-p', '--print']);

function programName(path: string): string {
  return basename(path).replace(/\.exe$/i, '');
}

/** The script a node command line runs, or null (REPL, `-e`). */
function nodeScript(argv: readonly string[]): string | null {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (NODE_EVAL_OPTIONS.has(arg)) return null;
    if (NODE_VALUE_OPTIONS.has(arg)) i++;
    else if (arg === '--') return argv[i + 1] ?? null;
    else if (!arg.startsWith('-')) return arg;
  }
  return null;
}

/** Whether a command line is the pi coding agent: `pi …`, or node running pi's script. */
export function isPiCommand(argv: readonly string[]): boolean {
  const first = argv[0];
  if (!first) return false;
  const program = programName(first);
  if (program === 'pi') return true;
  if (!/^node(js)?\d*$/.test(program)) return false;
  const script = nodeScript(argv);
  if (!script) return false;
  return script.endsWith('/pi') || script === 'pi' || script.includes('pi-coding-agent');
}

/**
 * What a look into one process found. A process is known by its pid and by when /proc made its
 * entry (`born`: the dir's inode and ctime, new for a reused pid). It is settled on its second
 * look with the same identity, a scan apart: a process caught between fork and exec (a shell
 * starting `pi`) is read again before its command is trusted to stay.
 */
interface Seen {
  born: string;
  settled: boolean;
  command: string | null;
}

/**
 * This user's running pi processes, scan after scan. A process already settled costs one stat
 * (its identity) per scan, not a read of its command line: the scan every few seconds reads
 * only new processes, where reading every one cost ~5 ms of CPU a second on its own.
 */
export class PiScanner {
  private readonly seen = new Map<number, Seen>();

  constructor(
    /** Seam: how a process's command line is read (Linux). */
    private readonly readCmdline = (pid: number): Promise<string> => readFile(`/proc/${pid}/cmdline`, 'utf8'),
  ) {}

  async scan(uid: number | null = process.getuid?.() ?? null): Promise<PiProcess[]> {
    const os = platform();
    if (os === 'linux') return this.scanLinux(uid);
    if (os === 'darwin') return scanMac(uid);
    return [];
  }

  /**
   * /proc is listed and each entry stat'ed synchronously, on purpose: procfs answers both from
   * memory, never waiting on a disk or on another process's locks, so a scan of a few hundred
   * processes is one short step instead of as many trips through the thread pool. Command lines
   * are read asynchronously: that read takes the process's memory lock, which a stuck process
   * may hold.
   */
  private async scanLinux(uid: number | null): Promise<PiProcess[]> {
    const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
    const listed = new Set(pids);
    for (const pid of this.seen.keys()) if (!listed.has(pid)) this.seen.delete(pid);
    const found = await Promise.all(pids.filter((pid) => pid !== process.pid).map((pid) => this.look(pid, uid)));
    return found.filter((p): p is PiProcess => p !== null).sort((a, b) => a.pid - b.pid);
  }

  /** One process: a pi of this user's, with its folder, or null. */
  private async look(pid: number, uid: number | null): Promise<PiProcess | null> {
    let stats: Stats | undefined;
    try {
      stats = statSync(`/proc/${pid}`, { throwIfNoEntry: false });
    } catch {
      return null; // not ours to look at (a /proc mounted with hidepid)
    }
    // Exited while we looked; or another user's pi, which is theirs: not listed, not even looked into.
    if (!stats || (uid !== null && stats.uid !== uid)) return null;
    const born = `${stats.ino}:${stats.ctimeMs}`;
    const before = this.seen.get(pid);
    let command: string | null;
    if (before?.born === born && before.settled) command = before.command;
    else {
      try {
        command = piCommand(await this.readCmdline(pid));
      } catch {
        return null; // exited meanwhile, or not ours to read
      }
      this.seen.set(pid, { born, settled: before?.born === born, command });
    }
    if (command === null) return null;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
    return { pid, cwd, command };
  }
}

/** The command of a pi process's command line, or null when it is not pi. */
function piCommand(cmdline: string): string | null {
  return isPiCommand(argvFromCmdline(cmdline)) ? (commandFromCmdline(cmdline) ?? '') : null;
}

/** `ps -o pid=,command=` → pid and command; macOS gives no argv boundaries, so split on spaces. */
export function parsePsList(output: string): { pid: number; command: string }[] {
  const rows: { pid: number; command: string }[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+)\s+(.*\S)\s*$/.exec(line);
    if (match) rows.push({ pid: Number(match[1]), command: match[2]! });
  }
  return rows;
}

async function scanMac(uid: number | null): Promise<PiProcess[]> {
  // `-U uid`: this user's processes only; another user's pi is theirs.
  const who = uid === null ? ['-ax'] : ['-U', String(uid)];
  const output = await new Promise<string>((resolve, reject) => {
    execFile('ps', [...who, '-o', 'pid=,command='], { timeout: 3000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(new Error(`ps failed: ${err.message}`)) : resolve(stdout),
    );
  });
  const rows = parsePsList(output).filter((row) => row.pid !== process.pid && isPiCommand(row.command.split(/\s+/)));
  return Promise.all(
    rows.map(async (row) => ({ pid: row.pid, cwd: (await processInfo(row.pid))?.cwd ?? null, command: row.command })),
  );
}

/** This user's running pi agent processes (hosted `--mode rpc` ones included: the hub knows those), in one scan. */
export function scanPiProcesses(uid: number | null = process.getuid?.() ?? null): Promise<PiProcess[]> {
  return new PiScanner().scan(uid);
}

/** Facts the hub knows about an unconnected pi; null = unknown. */
export interface IdleFacts {
  autoconnect: boolean | null;
  piIdeInstalled: boolean | null;
  /** Whether any advertised folder (the door's) contains the process's cwd. */
  folderMatched?: boolean | null;
  /** It started before the door existed; pi-ide only autoconnects at startup. */
  startedBeforeDoor?: boolean | null;
}

/** A process start time is known to about a second (/proc's boot time is in whole seconds). */
const START_TIME_SLACK_MS = 1000;

/**
 * Whether a pi started before the door was advertised (pi-ide looks for lockfiles only when its
 * session starts, so it cannot have seen it); null when the start time is unknown or too close.
 */
export function startedBefore(startedAt: number | null, advertisedAt: number | null): boolean | null {
  if (startedAt === null || advertisedAt === null) return null;
  if (startedAt < advertisedAt - START_TIME_SLACK_MS) return true;
  if (startedAt > advertisedAt + START_TIME_SLACK_MS) return false;
  return null;
}

/** Why a running pi has most likely not connected, most decisive fact first. */
export function likelyReason(info: Pick<PiProcess, 'cwd'>, facts: IdleFacts): string {
  if (facts.piIdeInstalled === false) return 'pi-ide extension not found';
  if (facts.autoconnect === false) return 'pi-ide autoconnect is off for this folder';
  if (info.cwd === null) return 'its folder cannot be read';
  if (facts.folderMatched === false) return 'no editor lockfile matched its folder';
  if (facts.startedBeforeDoor === true) return 'started before Patchbay: connect with /ide';
  return 'older pi-ide: connect with /ide';
}
