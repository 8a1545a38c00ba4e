// A child with piped stdio whose start can be awaited: `started` resolves with its pid or rejects
// with the spawn error (and an unwatched failure is no unhandled rejection); writes to a child
// that died fail quietly, its exit says what happened (onExitDrained, once its output is read).
import { spawn, type ChildProcess } from 'node:child_process';

export interface PipedSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  detached: boolean;
}

export function spawnPiped(spec: PipedSpec): { child: ChildProcess; started: Promise<number> } {
  const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'], detached: spec.detached });
  const started = new Promise<number>((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid!));
    child.once('error', reject);
  });
  started.catch(() => {});
  child.stdin!.on('error', () => {}); // EPIPE after it died
  return { child, started };
}

/** After `exit`, stdout may still hold lines; `close` normally follows at once (unless a tool's process holds the pipe). */
const DRAIN_MS = 250;

/** Calls `listener` once after `child` exits, when its pipes are drained too (every line came before), or a moment after. */
export function onExitDrained(child: ChildProcess, listener: (code: number | null, signal: NodeJS.Signals | null) => void): void {
  child.once('exit', (code, signal) => {
    let told = false;
    const tell = (): void => {
      if (told) return;
      told = true;
      clearTimeout(drained);
      listener(code, signal);
    };
    const drained = setTimeout(tell, DRAIN_MS);
    child.once('close', tell);
  });
}
