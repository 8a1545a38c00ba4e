// kill -9 of the daemon with an edit waiting: pi-ide writes it unreviewed (its own behaviour when
// the link drops), so the trace must say so: `status` names what the dead daemon left, and the
// next start lists the edit as interrupted, in the history and as a warning.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import type { TempDir } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, statusUntil, type Daemon, type Env } from './daemon-process.ts';

describe('a daemon killed with an edit pending', () => {
  let tmp: TempDir;
  let env: Env;
  let daemon: Daemon | undefined;
  let project: string;
  const peers: PeerProcess[] = [];

  before(async () => {
    ({ tmp, env, project } = await e2eFolder('e2e-crash'));
  });

  after(async () => {
    await daemon?.stop('SIGKILL');
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });

  test('leaves a trace: status suggests restore, and the next start lists the edit as possibly written unreviewed', async () => {
    const editor = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']);
    peers.push(editor);
    daemon = await startDaemon(env);
    await statusUntil(env, (s) => s.editors.length === 1, 'the editor adopted');
    const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
    peers.push(pi);
    const session = await statusUntil(env, (s) => s.sessions[0], 'the pi session');
    assert.equal((await cli(env, ['bind', session.id, 'none'])).code, 0);
    const file = join(project, 'crash.txt');
    await writeFile(file, 'before\n');
    pi.send({ cmd: 'write', path: file, contents: 'after, never reviewed\n', tag: 'w1' });
    const pending = await statusUntil(env, (s) => s.diffs[0], 'the edit waiting in Patchbay');

    await daemon.stop('SIGKILL');
    daemon = undefined;
    const line = await pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result', { timeoutMs: 5000 });
    assert.equal((line.result as { outcome: string }).outcome, 'unreviewed', 'pi-ide wrote it when its link dropped');
    assert.equal(await readFile(file, 'utf8'), 'after, never reviewed\n');

    const down = await cli(env, ['status']);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /not running/);
    assert.match(down.stderr, /stale door: .*\.lock/);
    assert.match(down.stderr, new RegExp(`hidden editor lockfile: .*\\.patchbay/${editor.ready.port}\\.lock`));
    assert.match(down.stderr, /Run `patchbay restore`/);

    daemon = await startDaemon(env);
    const snap = await statusUntil(env, (s) => s.history.find((r) => r.id === pending.id) && s, 'the interrupted edit in the history');
    const record = snap.history.find((r) => r.id === pending.id)!;
    assert.equal(record.outcome, 'interrupted');
    assert.equal(record.by, 'crash');
    assert.equal(record.path, file);
    assert.match(snap.warnings.join('\n'), new RegExp(`stopped unexpectedly with 1 edit waiting for review: ${file} \\(${pending.id}, from pi-ide\\)\\. The agent may have written it without review`));
    const listed = await cli(env, ['diffs']);
    assert.match(listed.stdout, new RegExp(`${pending.id} +interrupted +crash`));
    const shown = await cli(env, ['diffs', 'show', pending.id]);
    assert.match(shown.stderr, /interrupted by nobody: Patchbay stopped unexpectedly/);
    assert.match(shown.stderr, /not kept: Patchbay stopped unexpectedly while it waited/);

    // A clean stop after that leaves nothing pending behind: the next start warns of nothing.
    await daemon.stop('SIGTERM');
    daemon = await startDaemon(env);
    const clean = await statusUntil(env, (s) => s.door.port !== null && s, 'the daemon again');
    assert.doesNotMatch(clean.warnings.join('\n'), /stopped unexpectedly/);
  });
});
