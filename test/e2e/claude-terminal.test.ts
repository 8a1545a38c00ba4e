// Claude Code in a VS Code terminal, with the real daemon: the agent is a child process of the
// "VS Code" (this test process runs the extension's double, so its pid is the lockfile's), with
// the variables VS Code's terminal gives it. It trusts only lockfiles of its ancestors; the
// daemon finds its ancestry itself, from /proc.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { FakeEditor } from '../peers/fake-editor.ts';
import { listLockfiles } from '../peers/lockfiles.ts';
import { spawnPeer } from '../peers/spawn.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { isolatedEnv, startDaemon, statusUntil } from './daemon-process.ts';

test('Claude Code started in a VS Code terminal reaches Patchbay, is bound to that window, and its diff is decided there', { skip: process.platform !== 'linux' && 'the double reads its ancestry from /proc' }, async (t) => {
  const tmp = await tempDir('claude-terminal');
  t.after(() => tmp.cleanup());
  const env = await isolatedEnv(tmp.path);
  const configDir = join(tmp.path, 'claude');
  const lockDir = join(configDir, 'ide');
  await mkdir(lockDir, { recursive: true, mode: 0o700 });
  const project = join(tmp.path, 'project');
  await mkdir(project);
  const code = await FakeEditor.start({ lockDir, workspaceFolders: [project], vscode: true, pingIntervalMs: 0 });
  t.after(() => code.stop());

  const daemon = await startDaemon(env);
  t.after(() => daemon.stop('SIGKILL'));
  const snap = await statusUntil(env, (s) => s.editors.length === 1 && s.door.lockfiles.length === 2 && s, 'VS Code adopted and the doors written');
  const door = (await listLockfiles(lockDir)).found;
  assert.deepEqual(door.map((d) => [d.port, d.lock.pid, d.lock.ideName]), [[snap.door.port, process.pid, 'Patchbay']], 'the door names VS Code’s pid');

  // As VS Code's terminal starts it: a child of VS Code's process, with the extension's variables.
  const terminalEnv = { ...env.env, TERM_PROGRAM: 'vscode', CLAUDE_CODE_SSE_PORT: String(code.port), ENABLE_IDE_INTEGRATION: 'true' };
  const claude = await spawnPeer('claude', ['--cwd', project, '--config-dir', configDir, '--quiet'], { cwd: project, env: terminalEnv });
  t.after(() => claude.stop());
  assert.equal(claude.ready.port, snap.door.port);
  const session = await statusUntil(env, (s) => s.sessions.find((x) => x.kind === 'claude' && x.editorId !== null), 'Claude Code bound');
  assert.deepEqual([session.pid, session.editorId, session.reason], [claude.ready.pid, snap.editors[0]!.id, 'terminal']);

  const proposing = claude.command({ cmd: 'openDiff', path: 'a.txt', contents: 'from claude\n' }, { timeoutMs: 15_000 });
  const shown = await code.waitForDiff();
  code.decide(shown.tabName, 'saved');
  assert.equal(((await proposing) as { outcome: string }).outcome, 'accepted');
  assert.equal(await readFile(join(project, 'a.txt'), 'utf8'), 'from claude\n');
  await waitFor(() => code.diffs.size === 0, { message: 'the diff tab closed in VS Code' });

  await daemon.stop('SIGTERM');
  assert.ok(existsSync(join(lockDir, `${code.port}.lock`)), 'VS Code’s lockfile back in place');
  assert.deepEqual((await listLockfiles(lockDir)).found.map((f) => f.lock.ideName), ['Visual Studio Code'], 'no door left behind');
});
