// A new git worktree for a hosted agent (`patchbay pi start <dir> --worktree <branch>`): beside
// the repository, named after the branch, as `git worktree add ../<branch>` makes one. Several
// agents then work on one project at once without touching each other's files, and each is
// bound to the editor that has the project open (reason `worktree`).
import { lstat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HubError } from '../api/types.ts';
import { git, unsafeFolder } from './git.ts';
import { parseWorktreeList } from './worktrees.ts';

/** Why a branch name cannot be used here, or null (git's own check comes after). */
export function branchProblem(branch: string): string | null {
  if (branch.trim() === '') return 'the branch name is empty';
  if (branch.startsWith('-')) return `the branch name "${branch}" must not start with "-"`;
  if (/[\s\0-\x1f\x7f~^:?*[\\]/.test(branch) || branch.includes('..') || branch.endsWith('/') || branch.endsWith('.lock')) {
    return `"${branch}" is not a branch name git accepts`;
  }
  return null;
}

/** The folder a branch's worktree gets beside the main checkout: `<parent>/<branch>` (a `/` in it becomes `-`). */
export function worktreePath(mainCheckout: string, branch: string): string {
  return join(dirname(mainCheckout), branch.replaceAll('/', '-'));
}

function fail(message: string): never {
  throw new HubError(message, 'invalid');
}

/**
 * The worktree of `branch` for the repository `dir` is in: created (with the branch, when it is
 * new) unless that worktree exists already. Returns its path; throws saying why not.
 */
export async function addWorktree(dir: string, branch: string, env: NodeJS.ProcessEnv): Promise<{ path: string; created: boolean }> {
  const problem = branchProblem(branch);
  if (problem !== null) fail(`--worktree: ${problem}`);
  const checked = await git(dir, ['check-ref-format', '--branch', branch], env);
  if (!checked.ok) fail(`--worktree: "${branch}" is not a branch name git accepts (${checked.problem})`);
  const listed = await git(dir, ['worktree', 'list', '--porcelain'], env);
  if (!listed.ok) fail(`--worktree: ${dir} is not in a git repository (${listed.problem})`);
  const worktrees = parseWorktreeList(listed.stdout);
  const main = worktrees[0];
  if (main === undefined) fail(`--worktree: the repository of ${dir} has no checkout to put a worktree beside (a bare repository)`);
  const path = worktreePath(main, branch);
  const beside = await unsafeFolder(dirname(path));
  if (beside !== null) fail(`--worktree: ${beside}`);
  if (worktrees.includes(path)) {
    const head = await git(path, ['symbolic-ref', '--quiet', '--short', 'HEAD'], env);
    if (head.ok && head.stdout.trim() === branch) return { path, created: false };
    fail(`--worktree: ${path} is a worktree of this repository on ${head.ok ? head.stdout.trim() : 'no branch'}, not on ${branch}`);
  }
  const taken = await lstat(path).then(() => true, () => false);
  if (taken) fail(`--worktree: ${path} exists and is not a worktree of ${basename(main)}: choose another branch name, or move it away`);
  const exists = await git(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], env);
  const added = await git(dir, exists.ok ? ['worktree', 'add', '--', path, branch] : ['worktree', 'add', '-b', branch, '--', path], env);
  if (!added.ok) fail(`--worktree: git worktree add ${path} failed: ${added.problem}`);
  return { path, created: true };
}
