// The real `patchbay` binary as separate processes: a daemon owned by the test, and CLI runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Snapshot } from '../../src/api/types.ts';
import { START_MS, tempDir, waitFor, type TempDir, type Truthy } from '../peers/wait.ts';

const BIN = fileURLToPath(new URL('../../src/cli/bin.mjs', import.meta.url));

export interface Env {
  root: string;
  env: NodeJS.ProcessEnv;
  piLockDir: string;
}

/** An isolated environment: every dir Patchbay and the agents use lives under `root`. */
export async function isolatedEnv(root: string): Promise<Env> {
  const piLockDir = join(root, 'pi-ide');
  await mkdir(piLockDir, { recursive: true, mode: 0o700 });
  return {
    root,
    piLockDir,
    env: {
      PATH: process.env.PATH,
      HOME: root,
      PATCHBAY_HOME: join(root, 'patchbay'),
      PI_IDE_LOCK_DIR: piLockDir,
      CLAUDE_CONFIG_DIR: join(root, 'claude'),
      PI_CODING_AGENT_DIR: join(root, 'pi-agent'),
      PATCHBAY_SCAN_PROCESSES: '0',
    },
  };
}

/** A temp folder with an isolated environment and an agent's project folder in it. */
export async function e2eFolder(name: string): Promise<{ tmp: TempDir; env: Env; project: string }> {
  const tmp = await tempDir(name);
  const env = await isolatedEnv(tmp.path);
  const project = join(tmp.path, 'project');
  await mkdir(project);
  return { tmp, env, project };
}

export interface Daemon {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Signals the daemon. SIGKILL is the whole daemon dying at once (power loss, the OOM killer):
   * its keeper and every core it ran (a core alone would end review cleanly once its keeper is gone).
   */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** kill -9 of the keeper alone (the process `patchbay daemon` started as). */
  killKeeper(): Promise<void>;
  /** The cores the daemon has started so far (from its log). */
  corePids(): number[];
}

/** Whether a process of that pid runs (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startDaemon(env: Env): Promise<Daemon> {
  const child = spawn(process.execPath, [BIN, 'daemon'], { env: env.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(() => output.includes('running') || child.exitCode !== null, {
    timeoutMs: START_MS,
    message: () => `the daemon to start: ${output}`,
  });
  if (child.exitCode !== null) throw new Error(`the daemon exited: ${output}`);
  const corePids = (): number[] => [...output.matchAll(/core (\d+) started/g)].map((m) => Number(m[1]));
  return {
    child,
    output: () => output,
    exited,
    corePids,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      if (signal === 'SIGKILL') {
        for (const pid of corePids()) if (alive(pid)) process.kill(pid, 'SIGKILL');
        await waitFor(() => corePids().every((pid) => !alive(pid)), { message: 'its cores to die' });
      }
      return exited;
    },
    async killKeeper() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end; one still running after `timeoutMs` is killed (code null). */
export function cli(env: Env, args: string[], timeoutMs = START_MS): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env.env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function status(env: Env): Promise<Snapshot> {
  const run = await cli(env, ['status', '--json']);
  if (run.code !== 0) throw new Error(`patchbay status failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Snapshot;
}

/** Polls `patchbay status --json` until `pick` returns something truthy. */
export function statusUntil<T>(env: Env, pick: (s: Snapshot) => T, message: string, timeoutMs = 10_000): Promise<Truthy<T>> {
  return waitFor(async () => pick(await status(env)), { timeoutMs, intervalMs: 100, message });
}
