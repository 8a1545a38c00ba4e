// A child with piped stdio whose start can be awaited: `started` resolves with its pid or rejects
// with the spawn error (and an unwatched failure is no unhandled rejection); writes to a child
// that died fail quietly, its exit says what happened.
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
