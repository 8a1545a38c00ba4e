// Which git worktrees belong to the repositories live editors have open (DESIGN §9b): an agent
// working in a linked worktree of a repository open in Neovim is that Neovim's, though its
// folder is not. Each editor folder's repository (its common git dir) is looked up once; its
// worktree list is read again only when `<common dir>/worktrees` changed (one stat per refresh),
// which is where git records every worktree it adds or removes.
import { lstat, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { containingDepth } from '../broker/folders.ts';
import { git } from './git.ts';

/** `git worktree list --porcelain` → the worktrees' paths (a bare repository's entry left out). */
export function parseWorktreeList(text: string): string[] {
  const paths: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (path && isAbsolute(path) && !lines.includes('bare')) paths.push(path);
  }
  return paths;
}

/**
 * An editor's other checkouts: the worktrees of its folders' repositories but those its own
 * folders are in (an agent there is in the editor's own checkout, and bound by its folders).
 */
export function otherWorktrees(folders: readonly string[], worktreesOf: (folder: string) => readonly string[]): string[] {
  const all = new Set(folders.flatMap((folder) => worktreesOf(folder)));
  return [...all].filter((worktree) => !folders.some((folder) => containingDepth([worktree], folder) >= 0));
}

/** Whether `folder` or a folder above it holds a `.git` (a checkout's dir, or a worktree's file): one lstat per level, no git run. */
export async function underGit(folder: string): Promise<boolean> {
  const isFolder = await stat(folder).then((s) => s.isDirectory(), () => false);
  if (!isFolder) return false;
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    if (await lstat(join(dir, '.git')).then(() => true, () => false)) return true;
    if (dirname(dir) === dir) return false;
  }
}

interface Repository {
  /** A folder in it, where git is run. */
  folder: string;
  /** mtime of `<common dir>/worktrees` when it was last listed (0: it did not exist). */
  stamp: number | null;
  worktrees: string[];
}

export interface WorktreeIndexOptions {
  env: NodeJS.ProcessEnv;
  /** The worktrees of some repository changed (a new list to advertise and bind by). */
  onChange(): void;
  log(message: string): void;
}

export class WorktreeIndex {
  /** Editor folder → its repository's common git dir (null: not in a repository, or git could not tell). */
  private readonly commonDirs = new Map<string, string | null>();
  private readonly repositories = new Map<string, Repository>();
  /** Folder → why git was not run there (or failed), for the person. */
  private readonly folderProblems = new Map<string, string>();
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly opts: WorktreeIndexOptions) {}

  /** The editors' folders now: new ones are looked up (once), gone ones forgotten. Resolves when done. */
  setFolders(folders: readonly string[]): Promise<void> {
    return this.serial(async () => {
      const wanted = new Set(folders);
      for (const folder of [...this.commonDirs.keys()]) if (!wanted.has(folder)) this.commonDirs.delete(folder);
      for (const folder of [...this.folderProblems.keys()]) if (!wanted.has(folder)) this.folderProblems.delete(folder);
      for (const folder of wanted) if (!this.commonDirs.has(folder)) this.commonDirs.set(folder, await this.commonDirOf(folder));
      const used = new Set(this.commonDirs.values());
      for (const dir of [...this.repositories.keys()]) if (!used.has(dir)) this.repositories.delete(dir);
      await this.relist();
    });
  }

  /** Reads again the worktree lists whose repository added or removed one since. Resolves when done. */
  refresh(): Promise<void> {
    return this.serial(() => this.relist());
  }

  /** Every worktree (the main one included) of the repository `folder` is in; empty when it is in none. */
  worktreesOf(folder: string): string[] {
    const dir = this.commonDirs.get(folder);
    return dir ? (this.repositories.get(dir)?.worktrees ?? []) : [];
  }

  /** Why worktrees of some editor folders are not known. */
  problems(): string[] {
    return [...this.folderProblems.values()];
  }

  close(): void {
    this.closed = true;
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = (): Promise<void> => (this.closed ? Promise.resolve() : step());
    this.running = this.running.then(run, run);
    return this.running;
  }

  private async commonDirOf(folder: string): Promise<string | null> {
    // Most folders are in no repository: git is run only where one could be.
    if (!(await underGit(folder))) return null;
    const found = await git(folder, ['rev-parse', '--path-format=absolute', '--git-common-dir'], this.opts.env);
    if (!found.ok) {
      // Outside a repository is the usual case for a folder, and nothing to report.
      if (found.problem !== null && !/not a git repository/i.test(found.problem)) this.folderProblems.set(folder, `worktrees of ${folder}: ${found.problem}`);
      return null;
    }
    // An older git echoes an option it does not know: the dir is the last line either way.
    const dir = found.stdout.trim().split('\n').pop()?.trim() ?? '';
    if (dir === '') return null;
    const common = resolve(folder, dir);
    if (!this.repositories.has(common)) this.repositories.set(common, { folder, stamp: null, worktrees: [] });
    return common;
  }

  private async relist(): Promise<void> {
    let changed = false;
    for (const [dir, repo] of this.repositories) {
      const stamp = await stat(join(dir, 'worktrees')).then((s) => s.mtimeMs, () => 0);
      if (stamp === repo.stamp) continue;
      const listed = await git(repo.folder, ['worktree', 'list', '--porcelain'], this.opts.env);
      if (!listed.ok) {
        this.opts.log(`worktrees of ${repo.folder}: ${listed.problem}`);
        continue;
      }
      repo.stamp = stamp;
      const worktrees = parseWorktreeList(listed.stdout);
      if (JSON.stringify(worktrees) !== JSON.stringify(repo.worktrees)) {
        repo.worktrees = worktrees;
        changed = true;
      }
    }
    if (changed && !this.closed) this.opts.onChange();
  }
}
