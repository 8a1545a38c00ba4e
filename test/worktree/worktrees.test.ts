// Agents in git worktrees of a repository an editor has open: found with the real git, bound to
// that editor (reason `worktree`), the door advertised there, and hosted pi in a new worktree.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createHub, type Hub, type HubDeps } from '../../src/hub.ts';
import type { HubOptions } from '../../src/options.ts';
import { addWorktree, branchProblem, worktreePath } from '../../src/worktree/add.ts';
import { git } from '../../src/worktree/git.ts';
import { otherWorktrees, parseWorktreeList, underGit } from '../../src/worktree/worktrees.ts';
import { FakeEditor } from '../peers/fake-editor.ts';
import { FakePiClient } from '../peers/fake-pi.ts';
import { isolatedOptions } from '../peers/hub-options.ts';
import { spawnPeer, TSX_LOADER } from '../peers/spawn.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const FAKE_PI_RPC = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));
const hasGit = (() => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A repository with one commit, `<root>/project`. */
async function repository(root: string): Promise<string> {
  const project = join(root, 'project');
  await mkdir(project);
  await writeFile(join(project, 'a.txt'), 'one\n');
  const run = (...args: string[]) => execFileSync('git', ['-C', project, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'ignore' });
  run('init', '-q', '-b', 'main');
  run('add', 'a.txt');
  run('commit', '-q', '-m', 'one');
  return project;
}

describe('worktrees, without git', () => {
  test('git worktree list --porcelain gives each worktree’s path, a bare repository’s left out', () => {
    const text = 'worktree /src/p\nHEAD 1\nbranch refs/heads/main\n\nworktree /src/feature\nHEAD 2\nbranch refs/heads/feature\nprunable gitdir file points to non-existent location\n\nworktree /src/bare.git\nbare\n\n';
    assert.deepEqual(parseWorktreeList(text), ['/src/p', '/src/feature']);
  });

  test('an editor’s other worktrees are those its own folders are not in', () => {
    const of = () => ['/src/p', '/src/feature', '/src/hotfix'];
    assert.deepEqual(otherWorktrees(['/src/p/packages/core'], of), ['/src/feature', '/src/hotfix']);
    assert.deepEqual(otherWorktrees(['/src/feature'], of), ['/src/p', '/src/hotfix']);
  });

  test('a branch’s worktree goes beside the main checkout, named after it', () => {
    assert.equal(worktreePath('/src/project', 'feature-x'), '/src/feature-x');
    assert.equal(worktreePath('/src/project', 'me/fix'), '/src/me-fix');
    assert.match(branchProblem('-b') ?? '', /must not start with "-"/);
    assert.match(branchProblem('a b') ?? '', /not a branch name/);
    assert.equal(branchProblem('feature/x'), null);
  });
});

describe('worktrees, with git', { skip: hasGit ? false : 'needs git' }, () => {
  test('git is not run in a folder others may write, saying so', { skip: process.getuid?.() === undefined ? 'needs POSIX owners' : false }, async (t) => {
    const dir = await tempDir('wt-git');
    t.after(() => dir.cleanup());
    const open = join(dir.path, 'open');
    await mkdir(open);
    await chmod(open, 0o777);
    const result = await git(open, ['status'], process.env);
    assert.equal(result.ok, false);
    assert.match(result.problem ?? '', /does not run git in .*open: its group and others may write it/);
  });

  test('git runs only where a repository could be: in a checkout or under one, not in a plain folder', async (t) => {
    const dir = await tempDir('wt-under');
    t.after(() => dir.cleanup());
    const project = await repository(dir.path);
    await mkdir(join(project, 'src'));
    assert.equal(await underGit(join(project, 'src')), true);
    assert.equal(await underGit(dir.path), false);
    assert.equal(await underGit(join(dir.path, 'missing')), false);
  });

  async function hubWithEditor(t: TestContext, overrides: Partial<HubOptions> = {}, deps: HubDeps = {}): Promise<{ hub: Hub; options: HubOptions; project: string; root: string; editor: FakeEditor }> {
    const dir = await tempDir('wt-hub');
    const project = await repository(dir.path);
    const options = isolatedOptions(dir.path, { pollMs: 50, toolEnv: process.env, ...overrides });
    const hub = await createHub(options, deps);
    const editor = await FakeEditor.start({ lockDir: options.piLockDir, workspaceFolders: [project], dialect: 'pi' });
    t.after(async () => {
      await editor.stop();
      await hub.close();
      await dir.cleanup();
    });
    await waitFor(async () => (await hub.call('snapshot', undefined)).editors.length === 1);
    return { hub, options, project, root: dir.path, editor };
  }

  test('an agent in a linked worktree of the repository an editor has open finds the door there and is bound to that editor; its edits open there at the worktree’s paths', async (t) => {
    const { hub, options, project, root, editor } = await hubWithEditor(t);
    const feature = join(root, 'feature');
    // Added while the editor is open: Patchbay notices by itself.
    execFileSync('git', ['-C', project, 'worktree', 'add', '-q', '-b', 'feature', feature], { stdio: 'ignore' });
    const lockfile = await waitFor(async () => {
      const [path] = (await hub.call('snapshot', undefined)).door.lockfiles;
      const lock = path ? JSON.parse(await readFile(path, 'utf8')) : null;
      return lock?.workspaceFolders.includes(feature) ? lock : null;
    }, { timeoutMs: 10_000, message: 'the door advertising the worktree' });
    assert.deepEqual(lockfile.workspaceFolders, [project, feature]);
    assert.deepEqual((await hub.call('snapshot', undefined)).editors[0]?.worktrees, [feature]);

    const agent = await spawnPeer('pi', ['--cwd', feature, '--lock-dir', options.piLockDir, '--quiet'], { cwd: feature });
    t.after(() => agent.stop());
    const session = await waitFor(async () => (await hub.call('snapshot', undefined)).sessions.find((s) => s.editorId !== null), { timeoutMs: 10_000 });
    assert.equal(session.reason, 'worktree');
    assert.equal(session.cwd, feature);
    const writing = agent.command({ cmd: 'write', path: join(feature, 'a.txt'), contents: 'two\n' }, { timeoutMs: 10_000 });
    const diff = await editor.waitForDiff(undefined, { timeoutMs: 10_000 });
    assert.equal(diff.args.new_file_path, join(feature, 'a.txt'));
    editor.decide(diff.tabName, 'saved');
    assert.equal(((await writing) as { outcome: string }).outcome, 'saved');
    assert.equal(await readFile(join(feature, 'a.txt'), 'utf8'), 'two\n');
    assert.equal(await readFile(join(project, 'a.txt'), 'utf8'), 'one\n', 'the editor’s own checkout is untouched');
  });

  test('pi start --worktree hosts pi in a new worktree beside the repository, named after the branch, bound to the editor', async (t) => {
    let hosted: { pid: number; cwd: string } | null = null;
    const { hub, options, project, root } = await hubWithEditor(
      t,
      { piCommand: [process.execPath, '--import', TSX_LOADER, FAKE_PI_RPC], piEnv: process.env, piStopGraceMs: 500 },
      // Stands in for the /proc lookup: the connection comes from the hosted pi's process.
      { lookupPeer: async () => (hosted ? { pid: hosted.pid, cwd: hosted.cwd, command: 'pi', startedAt: null } : null) },
    );
    const view = await hub.call('pi.start', { cwd: project, worktree: 'feature/x' });
    hosted = { pid: view.pid!, cwd: view.cwd };
    const path = join(root, 'feature-x');
    assert.equal(view.cwd, path);
    assert.ok(existsSync(join(path, 'a.txt')));
    assert.equal(execFileSync('git', ['-C', path, 'symbolic-ref', '--short', 'HEAD'], { encoding: 'utf8' }).trim(), 'feature/x');
    // What the hosted pi's pi-ide does: it finds the door for the worktree, and is bound to the editor.
    const piIde = await FakePiClient.connect({ cwd: path, lockDir: options.piLockDir });
    t.after(() => piIde.close());
    const session = await waitFor(async () => (await hub.call('snapshot', undefined)).sessions.find((s) => s.editorId !== null), { timeoutMs: 10_000 });
    assert.equal(session.editorId, (await hub.call('snapshot', undefined)).editors[0]!.id);
    assert.equal(session.reason, 'worktree');
    // Again for the same branch: the same worktree, not a second one.
    assert.deepEqual(await addWorktree(project, 'feature/x', process.env), { path, created: false });
    await writeFile(join(root, 'taken'), '');
    await assert.rejects(hub.call('pi.start', { cwd: project, worktree: 'taken' }), /exists and is not a worktree of project/);
    await assert.rejects(hub.call('pi.start', { cwd: project, worktree: '-x' }), /must not start with "-"/);
    const door = (await hub.call('snapshot', undefined)).door.lockfiles[0]!;
    assert.ok(JSON.parse(await readFile(door, 'utf8')).workspaceFolders.includes(path));
  });
});
