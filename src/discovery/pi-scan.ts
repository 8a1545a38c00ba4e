// Running pi agents, connected or not (DESIGN §4): the hub lists the ones that never reached
// the door, with the likely reason why.
import { execFile } from 'node:child_process';
import { readFile, readdir, readlink, stat } from 'node:fs/promises';
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

async function scanLinux(uid: number | null): Promise<PiProcess[]> {
  const names = await readdir('/proc');
  const found: PiProcess[] = [];
  await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name) => {
        let cmdline: string;
        try {
          // Another user's pi is theirs: not listed, not even looked into.
          if (uid !== null && (await stat(`/proc/${name}`)).uid !== uid) return;
          cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8');
        } catch {
          return; // exited while we looked, or not ours to read
        }
        const argv = argvFromCmdline(cmdline);
        if (!isPiCommand(argv)) return;
        const cwd = await readlink(`/proc/${name}/cwd`).catch(() => null);
        found.push({ pid: Number(name), cwd, command: commandFromCmdline(cmdline) ?? '' });
      }),
  );
  return found.sort((a, b) => a.pid - b.pid);
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

/** This user's running pi agent processes (hosted `--mode rpc` ones included: the hub knows those). */
export async function scanPiProcesses(uid: number | null = process.getuid?.() ?? null): Promise<PiProcess[]> {
  const os = platform();
  if (os === 'linux') return scanLinux(uid);
  if (os === 'darwin') return scanMac(uid);
  return [];
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
