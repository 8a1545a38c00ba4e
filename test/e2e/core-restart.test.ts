// Patchbay's core restarts under the daemon (its keeper) without agents or editors noticing:
// after `patchbay restart` and after kill -9 of the core, the same connections go on, the edit
// waiting for review stays pending under its id, and the editor's answer to the offer the old
// core made reaches the agent. Run against the real `patchbay daemon` and the doubles.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import type { TempDir } from '../peers/wait.ts';
import { connectControl } from '../../src/web/control-client.ts';
import { cli, e2eFolder, startDaemon, status, statusUntil, type Daemon, type Env } from './daemon-process.ts';

describe('the core restarting mid-review', () => {
  let tmp: TempDir;
  let env: Env;
  let project: string;
  let daemon: Daemon | undefined;
  let peers: PeerProcess[] = [];

  beforeEach(async () => {
    ({ tmp, env, project } = await e2eFolder('e2e-core-restart'));
    peers = [];
  });

  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });

  /** A Neovim double and a pi double bound to it, with a write offered to the editor and waiting. */
  async function reviewUnderWay(contents = 'after, reviewed\n') {
    const editor = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim']);
    peers.push(editor);
    daemon = await startDaemon(env);
    await statusUntil(env, (s) => s.editors.length === 1, 'the editor adopted');
    const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir], { cwd: project });
    peers.push(pi);
    const session = await statusUntil(env, (s) => s.sessions.find((x) => x.editorId !== null), 'the pi session bound to the editor');
    const file = join(project, 'notes.txt');
    await writeFile(file, 'before\n');
    pi.send({ cmd: 'write', path: file, contents, tag: 'w1' });
    const offered = await editor.waitForLine((l) => l.event === 'diff');
    const pending = await statusUntil(env, (s) => s.diffs[0], 'the edit pending');
    const before = await status(env);
    return { editor, pi, session, file, offered, pending, before };
  }

  /** After the restart: same session, same diff, nothing written, nobody disconnected. */
  async function keptAcrossRestart(r: Awaited<ReturnType<typeof reviewUnderWay>>, reason: 'restart' | 'crash') {
    const after = await statusUntil(env, (s) => s.corePid !== r.before.corePid && s.diffs.length === 1 && s.editors[0]?.link === 'open' && s, 'the new core with the edit back');
    assert.equal(after.pid, r.before.pid, 'the daemon is the same process');
    assert.equal(after.core.reason, reason);
    assert.equal(after.door.port, r.before.door.port, 'the door keeps its port');
    assert.deepEqual(after.sessions.map((s) => s.id), [r.session.id], 'the session keeps its id');
    assert.equal(after.sessions[0]!.editorId, r.session.editorId, 'and its binding');
    assert.equal(after.diffs[0]!.id, r.pending.id, 'the edit keeps its id');
    assert.equal(await readFile(r.file, 'utf8'), 'before\n', 'nothing was written');
    assert.equal(r.pi.lines.find((l) => l.event === 'closed'), undefined, 'the agent was never disconnected');
    // (Discovery's probes are connections of their own, which close.)
    assert.equal(r.editor.lines.find((l) => l.event === 'disconnect' && l.client === r.offered.client), undefined, 'nor the editor’s link');
    return after;
  }

  test('patchbay restart: every connection and the pending edit go on; the editor’s answer to the old core’s offer reaches the agent', async () => {
    const r = await reviewUnderWay();
    const restarted = await cli(env, ['restart']);
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.match(restarted.stdout, new RegExp(`^Patchbay's core restarted in \\d+ ms \\(pid ${r.before.corePid} → \\d+\\); kept 1 agent session, 1 pending edit\\n$`));
    await keptAcrossRestart(r, 'restart');

    r.editor.send({ cmd: 'decide', tabName: r.offered.tabName, outcome: 'save' });
    const result = await r.pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
    assert.equal((result.result as { outcome: string }).outcome, 'saved');
    assert.equal(await readFile(r.file, 'utf8'), 'after, reviewed\n');
    const turn = await r.pi.command({ cmd: 'turn' });
    assert.ok(turn, 'the agent’s next turn is answered');
    const decided = await statusUntil(env, (s) => s.history.find((h) => h.id === r.pending.id), 'the decision in the history');
    assert.equal(decided.outcome, 'accepted');
    assert.equal(decided.by, 'editor');
  });

  test('kill -9 of the core: a new one takes over within a moment, and the edit is decided there', async () => {
    const r = await reviewUnderWay();
    const killedAt = Date.now();
    process.kill(r.before.corePid, 'SIGKILL');
    const after = await keptAcrossRestart(r, 'crash');
    assert.ok(after.core.startedAt - killedAt < 10_000, 'within 10 s');

    const accepted = await cli(env, ['diffs', 'accept', r.pending.id]);
    assert.equal(accepted.code, 0, accepted.stderr);
    const result = await r.pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
    assert.equal((result.result as { outcome: string }).outcome, 'saved');
    assert.equal(await readFile(r.file, 'utf8'), 'after, reviewed\n');
    await r.editor.waitForLine((l) => l.event === 'diffClosed' && l.tabName === r.offered.tabName);
  });

  test('kill -9 of the core with an edit over a MiB held: the new core reads it as the old one did (lazily) and keeps it', async () => {
    // Above LAZY_FRAME_BYTES the request is read with its file left as bytes, on arrival and again when taken over.
    const line = 'export function greet(name: string): string {\n  return `hello, ${name}`;\n}\n';
    const contents = line.repeat(Math.ceil((1.5 * 1024 * 1024) / line.length));
    const r = await reviewUnderWay(contents);
    process.kill(r.before.corePid, 'SIGKILL');
    await keptAcrossRestart(r, 'crash');
    const accepted = await cli(env, ['diffs', 'accept', r.pending.id]);
    assert.equal(accepted.code, 0, accepted.stderr);
    const result = await r.pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
    assert.equal((result.result as { outcome: string }).outcome, 'saved');
    assert.equal(await readFile(r.file, 'utf8'), contents, 'the whole file, as proposed');
  });

  test('a full stop in the middle of a restart waits for the new core, which ends review cleanly', async () => {
    const r = await reviewUnderWay();
    const control = await connectControl(env.env.PATCHBAY_HOME!);
    // Answered once the next core is loaded, just before the old one hands over: the stop lands mid-restart.
    await control.call('restart', undefined);
    const stopping = daemon!.stop('SIGTERM');
    control.close();
    const stopped = await stopping;
    const output = daemon!.output();
    daemon = undefined;
    assert.equal(stopped.code, 0, output);
    assert.match(output, /core \d+ started \(restart;/, 'the restart went through to the next core rather than being cut short');
    const result = await r.pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
    assert.equal((result.result as { outcome: string }).outcome, 'rejected');
    assert.equal(await readFile(r.file, 'utf8'), 'before\n');
    assert.deepEqual(await readdir(env.piLockDir), [`${r.editor.ready.port}.lock`], 'the editor’s lockfile back, nothing of Patchbay’s left');
  });

  test('a full stop after a restart still ends review cleanly: the edit is rejected, lockfiles go back', async () => {
    const r = await reviewUnderWay();
    process.kill(r.before.corePid, 'SIGKILL');
    await keptAcrossRestart(r, 'crash');
    const stopped = await daemon!.stop('SIGTERM');
    daemon = undefined;
    assert.equal(stopped.code, 0);
    const result = await r.pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
    assert.equal((result.result as { outcome: string }).outcome, 'rejected');
    assert.equal(await readFile(r.file, 'utf8'), 'before\n');
  });
});
