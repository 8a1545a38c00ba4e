// The real daemon, the real CLI and fake peers, each in its own process.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import { waitFor, type TempDir } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, status, statusUntil, type Daemon, type Env } from './daemon-process.ts';

describe('patchbay daemon with a real editor process and a real agent process', () => {
  let tmp: TempDir;
  let env: Env;
  let daemon: Daemon;
  let project: string;
  const peers: PeerProcess[] = [];
  let squatter: Server;

  const editor = async (): Promise<PeerProcess> => {
    const peer = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']);
    peers.push(peer);
    return peer;
  };

  before(async () => {
    ({ tmp, env, project } = await e2eFolder('e2e'));
  });

  after(async () => {
    await daemon?.stop('SIGKILL');
    await Promise.all(peers.map((p) => p.kill()));
    squatter?.close();
    await tmp.cleanup();
  });

  test('the CLI says clearly when the daemon is not running', async () => {
    const run = await cli(env, ['status']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /not running/);
  });

  test('an editor is adopted, bad lockfiles are listed with reasons, and a pi session is bound to the editor', async () => {
    const nvim = await editor();
    // A garbage lockfile, one for a dead pid, and one whose port is owned by a plain HTTP server.
    await writeFile(join(env.piLockDir, '1111.lock'), '{ this is not json');
    await writeFile(
      join(env.piLockDir, '2222.lock'),
      JSON.stringify({ pid: 999_999_999, workspaceFolders: [project], ideName: 'ghost', transport: 'ws', authToken: 't' }),
    );
    squatter = createServer((_q, s) => s.end('hello')).listen(0, '127.0.0.1');
    await new Promise((r) => squatter.once('listening', r));
    const squatPort = (squatter.address() as AddressInfo).port;
    await writeFile(
      join(env.piLockDir, `${squatPort}.lock`),
      JSON.stringify({ pid: process.pid, workspaceFolders: [project], ideName: 'impostor', transport: 'ws', authToken: 't' }),
    );

    daemon = await startDaemon(env);
    const snap = await statusUntil(env, (s) => s.editors.length === 1 && s.invalidLockfiles.length >= 3 && s, 'editor + 3 invalid lockfiles');
    assert.equal(snap.editors[0]!.port, nvim.ready.port);
    assert.equal(snap.editors[0]!.dialect, 'pi');
    const reasons = snap.invalidLockfiles.map((i) => `${i.path}: ${i.reason}`).join('\n');
    assert.match(reasons, /1111\.lock: .*JSON/i);
    assert.match(reasons, /2222\.lock: .*(pid|not running|dead)/i);
    assert.match(reasons, new RegExp(`${squatPort}\\.lock: .+`));
    // Takeover: the editor's lockfile moved aside, the door's is the only one an agent sees.
    assert.ok(existsSync(join(env.piLockDir, '.patchbay', `${nvim.ready.port}.lock`)));
    assert.ok(!existsSync(join(env.piLockDir, `${nvim.ready.port}.lock`)));
    assert.equal(snap.door.lockfiles.length, 2);

    const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
    peers.push(pi);
    assert.equal(pi.ready.port, snap.door.port, 'pi autoconnected to the door');
    const session = await statusUntil(env, (s) => s.sessions.find((x) => x.editorId !== null), 'a bound session');
    assert.equal(session.pid, pi.ready.pid, 'found from the TCP peer');
    assert.equal(session.cwd, project);
    assert.equal(session.kind, 'pi');
    assert.equal(session.reason, 'cwd');
    assert.equal(session.editorId, snap.editors[0]!.id);
  });

  test('kill -9 of the editor mid-diff keeps the diff; a restarted editor gets it again and its decision reaches the agent', async () => {
    const [nvim, pi] = [peers[0]!, peers[1]!];
    const file = join(project, 'edit.txt');
    await writeFile(file, 'before\n');
    pi.send({ cmd: 'write', path: file, contents: 'after\n', tag: 'w1' });
    await waitFor(async () => ((await nvim.command({ cmd: 'diffs' })) as unknown[]).length === 1);
    await nvim.kill('SIGKILL');
    const pending = await statusUntil(env, (s) => s.editors.length === 0 && s.diffs.length === 1 && s.diffs[0], 'the diff still pending, editor gone');
    assert.equal(pending.path, file);
    assert.equal(pending.inEditor, false);

    const again = await editor();
    const diffs = await waitFor(async () => {
      const open = (await again.command({ cmd: 'diffs' })) as { tabName: string }[];
      return open.length === 1 && open;
    }, { timeoutMs: 10_000, message: 'the diff re-offered to the restarted editor' });
    await again.command({ cmd: 'decide', tabName: diffs[0]!.tabName, outcome: 'save', contents: 'after, reviewed\n' });
    const result = await pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
    assert.equal((result.result as { outcome: string }).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), 'after, reviewed\n');
  });

  test('CLI commands act on the daemon and refuse unknown ids', async () => {
    const snap = await status(env);
    const session = snap.sessions[0]!;
    const bound = await cli(env, ['bind', session.id, 'none']);
    assert.equal(bound.code, 0, bound.stderr);
    const moved = await statusUntil(env, (s) => s.sessions.find((x) => x.id === session.id && x.editorId === null), 'unbound');
    assert.equal(moved.reason, 'manual');
    const unknown = await cli(env, ['diffs', 'accept', 'd999']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /d999/);

    const pi = peers[1]!;
    const file = join(project, 'cli.txt');
    pi.send({ cmd: 'write', path: file, contents: 'proposed\n', tag: 'w2' });
    const diff = await statusUntil(env, (s) => s.diffs[0], 'a pending diff in Patchbay');
    const shown = await cli(env, ['diffs', 'show', diff.id]);
    assert.match(shown.stdout, /\+proposed/);
    const contents = join(tmp.path, 'final.txt');
    await writeFile(contents, 'final from the CLI\n');
    const accepted = await cli(env, ['diffs', 'accept', diff.id, '--contents-file', contents]);
    assert.equal(accepted.code, 0, accepted.stderr);
    await pi.waitForLine((l) => l.tag === 'w2' && l.event === 'result');
    assert.equal(await readFile(file, 'utf8'), 'final from the CLI\n');
  });

  test('SIGKILL of the daemon leaves adopted lockfiles; the next start recovers them and a clean stop restores them', async () => {
    const nvim = peers[peers.length - 1]!;
    const adopted = join(env.piLockDir, '.patchbay', `${nvim.ready.port}.lock`);
    await waitFor(() => existsSync(adopted), { message: 'adopted lockfile' });
    await daemon.stop('SIGKILL');
    assert.ok(existsSync(adopted), 'still aside after the crash');

    // By hand, with no daemon: the editor's lockfile goes back, the dead door's is deleted.
    const restored = await cli(env, ['restore']);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, new RegExp(`restored .*${nvim.ready.port}\\.lock`));
    assert.match(restored.stdout, /removed .*\.lock/);
    assert.ok(existsSync(join(env.piLockDir, `${nvim.ready.port}.lock`)));

    daemon = await startDaemon(env);
    await statusUntil(env, (s) => s.editors.length === 1, 'the editor re-adopted');
    // A pi session with a pending diff hears DIFF_REJECTED before the daemon goes.
    const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
    peers.push(pi);
    await cli(env, ['bind', (await statusUntil(env, (s) => s.sessions[0], 'session')).id, 'none']);
    pi.send({ cmd: 'write', path: join(project, 'late.txt'), contents: 'x', tag: 'w3' });
    await statusUntil(env, (s) => s.diffs.length === 1, 'pending diff');
    const stopped = await daemon.stop('SIGTERM');
    assert.equal(stopped.code, 0, daemon.output());
    const line = await pi.waitForLine((l) => l.tag === 'w3' && l.event === 'result');
    assert.equal((line.result as { outcome: string }).outcome, 'rejected');

    const files = await readdir(env.piLockDir);
    assert.ok(files.includes(`${nvim.ready.port}.lock`), `editor lockfile restored: ${files.join(', ')}`);
    assert.ok(!existsSync(adopted));
    const lock = JSON.parse(await readFile(join(env.piLockDir, `${nvim.ready.port}.lock`), 'utf8')) as { ideName: string };
    assert.equal(lock.ideName, 'nvim');
    const expected = [`${nvim.ready.port}.lock`, '1111.lock', '2222.lock', `${(squatter.address() as AddressInfo).port}.lock`];
    const left = files.filter((f) => f.endsWith('.lock') && !expected.includes(f));
    const described = await Promise.all(left.map(async (f) => `${f}: ${await readFile(join(env.piLockDir, f), 'utf8')}`));
    assert.deepEqual(described, [], 'no door lockfile (nor anything else) left behind');
  });
});
