// The system git, as Patchbay runs it to find worktrees (DESIGN §9b): a fixed argv and no
// shell, a bounded output, a deadline, none of the caller's GIT_* variables (a GIT_DIR there
// would point every command at one repository), never a prompt; and never in a folder another
// user can write (they could put a repository there, whose config names programs git runs): that
// is refused, saying so.
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { otherWriters } from '../fs/writers.ts';

export const GIT_TIMEOUT_MS = 5000;
const MAX_OUTPUT_BYTES = 1024 * 1024;

export interface GitResult {
  ok: boolean;
  stdout: string;
  /** Why it failed, in git's words (its stderr's first line) or ours. */
  problem: string | null;
}

/** Why git must not run in `dir`, or null: it must be a folder of the current user's (or root's) that nobody else may write. */
export async function unsafeFolder(dir: string): Promise<string | null> {
  let stats;
  try {
    stats = await stat(dir);
  } catch (err) {
    return `${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (!stats.isDirectory()) return `${dir} is not a folder`;
  const me = process.getuid?.();
  if (me !== undefined && stats.uid !== me && stats.uid !== 0) return `Patchbay does not run git in ${dir}: it belongs to uid ${stats.uid}, not to you`;
  const who = otherWriters(stats.mode);
  if (who !== null) return `Patchbay does not run git in ${dir}: ${who} may write it (chmod go-w ${dir} if it is yours alone)`;
  return null;
}

/** The environment git runs in: the caller's, without GIT_*, in the C locale, never prompting. */
export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('GIT_')));
  return { ...clean, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };
}

/** `git -C <dir> <args>`; resolves (never rejects) with its output or why it failed. */
export async function git(dir: string, args: readonly string[], env: NodeJS.ProcessEnv, git = 'git'): Promise<GitResult> {
  const unsafe = await unsafeFolder(dir);
  if (unsafe !== null) return { ok: false, stdout: '', problem: unsafe };
  return new Promise((resolve) => {
    execFile(git, ['-C', dir, ...args], { env: gitEnv(env), timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve({ ok: true, stdout, problem: null });
      const said = stderr.split('\n').find((line) => line.trim() !== '')?.trim();
      const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed (no git on PATH)' : (err as { killed?: boolean }).killed ? `git took longer than ${GIT_TIMEOUT_MS} ms` : (said ?? err.message);
      resolve({ ok: false, stdout, problem: why });
    });
  });
}
