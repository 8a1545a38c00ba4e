// The remote helper, run as sshd runs a command: the login shell's `-c` with the bootstrap, the
// script on stdin. Here the "remote" is this machine (the ssh tests run it over real OpenSSH).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { localChildHost } from '../../src/remote/child-host.ts';
import { BOOTSTRAP, HELPER_SCRIPT, parseHelperLine, writeLine } from '../../src/remote/helper.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

interface Helper {
  lines: string[];
  send(text: string): void;
  end(): void;
  exited: Promise<number | null>;
}

/** The helper as sshd runs it; killed when the test ends, whatever happened. */
function runHelper(t: TestContext, shell: string, env: NodeJS.ProcessEnv): Helper {
  const lines: string[] = [];
  let done!: (code: number | null) => void;
  const exited = new Promise<number | null>((resolve) => (done = resolve));
  const child = localChildHost.start(
    { command: shell, args: ['-c', BOOTSTRAP], env: { PATH: '/usr/bin:/bin', ...env } },
    { stdout: (line) => lines.push(line), stderr: (line) => lines.push(`stderr: ${line}`), exit: (e) => done(e.code) },
  );
  t.after(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  child.write(HELPER_SCRIPT);
  return { lines, send: (text) => child.write(text), end: () => child.endInput(), exited };
}

/** Waits for the helper's output under a busy machine's load too. */
const SLOW = { timeoutMs: 20_000 };

const mode = async (path: string): Promise<string> => ((await lstat(path)).mode & 0o777).toString(8);

describe('the remote helper', () => {
  for (const shell of ['/bin/sh', '/bin/bash'].filter(existsSync)) {
    test(`under ${shell}: writes the door's lockfiles 0600 in 0700 dirs where the remote's variables say, and removes them when its input ends`, async (t) => {
      const dir = await tempDir('helper');
      t.after(() => dir.cleanup());
      const piDir = join(dir.path, 'pi lock');
      const helper = runHelper(t, shell, { HOME: dir.path, PI_IDE_LOCK_DIR: piDir, CLAUDE_CONFIG_DIR: join(dir.path, 'claude') });
      await waitFor(() => helper.lines.includes(`dir pi ${piDir}`), { ...SLOW, message: () => helper.lines.join('\n') });
      const hello = helper.lines.map(parseHelperLine).find((l) => l?.kind === 'hello');
      assert.ok(hello && hello.kind === 'hello' && hello.pid > 1);
      const body = JSON.stringify({ pid: hello.pid, workspaceFolders: ['/home/dev/a b'], ideName: 'Patchbay', transport: 'ws', authToken: 'tok-pi' });
      helper.send(writeLine('pi', 41000, 'tok-pi', body));
      helper.send(writeLine('claude', 41000, 'tok-claude', '{"authToken":"tok-claude"}'));
      await waitFor(() => helper.lines.filter((l) => l.startsWith('wrote ')).length === 2, { ...SLOW, message: () => helper.lines.join('\n') });
      const piLock = join(piDir, '41000.lock');
      const claudeLock = join(dir.path, 'claude', 'ide', '41000.lock');
      assert.equal(await readFile(piLock, 'utf8'), body);
      assert.equal(await mode(piLock), '600');
      assert.equal(await mode(claudeLock), '600');
      assert.equal(await mode(piDir), '700');
      assert.equal(await mode(join(dir.path, 'claude', 'ide')), '700');
      helper.end();
      assert.equal(await helper.exited, 0);
      assert.equal(existsSync(piLock), false);
      assert.equal(existsSync(claudeLock), false);
    });
  }

  test('a lock dir that is a symlink is refused, saying so, and the other dir still gets its lockfile', async (t) => {
    const dir = await tempDir('helper');
    t.after(() => dir.cleanup());
    await mkdir(join(dir.path, 'elsewhere'));
    await symlink(join(dir.path, 'elsewhere'), join(dir.path, 'pi-ide'));
    const helper = runHelper(t, '/bin/sh', { HOME: dir.path, PI_IDE_LOCK_DIR: join(dir.path, 'pi-ide'), CLAUDE_CONFIG_DIR: join(dir.path, 'claude') });
    helper.send(writeLine('pi', 41001, 't1', '{"authToken":"t1"}'));
    helper.send(writeLine('claude', 41001, 't2', '{"authToken":"t2"}'));
    await waitFor(() => helper.lines.some((l) => l.startsWith('wrote claude')), { ...SLOW, message: () => helper.lines.join('\n') });
    assert.ok(helper.lines.some((l) => /^error pi .*is a symlink/.test(l)), helper.lines.join('\n'));
    assert.equal(existsSync(join(dir.path, 'elsewhere', '41001.lock')), false);
    helper.end();
    await helper.exited;
  });

  test('a lockfile someone rewrote meanwhile is left alone; an earlier tunnel’s is forgotten only while it holds that tunnel’s token', async (t) => {
    const dir = await tempDir('helper');
    t.after(() => dir.cleanup());
    const piDir = join(dir.path, 'pi');
    await mkdir(piDir, { mode: 0o700 });
    await writeFile(join(piDir, '40000.lock'), '{"authToken":"old-token"}');
    await writeFile(join(piDir, '40001.lock'), '{"authToken":"an editor of its own"}');
    const helper = runHelper(t, '/bin/sh', { HOME: dir.path, PI_IDE_LOCK_DIR: piDir, CLAUDE_CONFIG_DIR: join(dir.path, 'claude') });
    helper.send('forget pi 40000 old-token\n');
    helper.send('forget pi 40001 old-token\n');
    helper.send(writeLine('pi', 41002, 'mine', '{"authToken":"mine"}'));
    await waitFor(() => helper.lines.some((l) => l.startsWith('wrote pi')), { ...SLOW, message: () => helper.lines.join('\n') });
    assert.equal(existsSync(join(piDir, '40000.lock')), false);
    assert.equal(existsSync(join(piDir, '40001.lock')), true);
    await writeFile(join(piDir, '41002.lock'), '{"authToken":"someone else now"}');
    helper.end();
    await helper.exited;
    assert.equal(existsSync(join(piDir, '41002.lock')), true);
  });

  test('a helper that hears no beat from Patchbay ends and removes its lockfiles, though its input stays open (a client gone without a word)', async (t) => {
    const dir = await tempDir('helper');
    t.after(() => dir.cleanup());
    const helper = runHelper(t, '/bin/sh', { HOME: dir.path, PI_IDE_LOCK_DIR: join(dir.path, 'pi'), CLAUDE_CONFIG_DIR: join(dir.path, 'claude') });
    helper.send(writeLine('pi', 41003, 'tok', '{"authToken":"tok"}'));
    await waitFor(() => helper.lines.some((l) => l.startsWith('wrote pi')), { ...SLOW, message: () => helper.lines.join('\n') });
    helper.send('beat 1\n');
    const started = Date.now();
    assert.equal(await helper.exited, 0);
    assert.ok(Date.now() - started >= 900, 'it waited for the beat that did not come');
    assert.equal(existsSync(join(dir.path, 'pi', '41003.lock')), false);
  });

  test('beats keep a helper going', async (t) => {
    const dir = await tempDir('helper');
    t.after(() => dir.cleanup());
    const helper = runHelper(t, '/bin/sh', { HOME: dir.path });
    for (let i = 0; i < 4; i++) {
      helper.send('beat 1\n');
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    const now = await Promise.race([helper.exited.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('running'), 10))]);
    assert.equal(now, 'running', 'alive after 1.6 s of beats, each due within a second');
    helper.end();
    await helper.exited;
  });

  test('reads a file over there for the review of an edit no map covers: bounded, missing, or refused', async (t) => {
    const dir = await tempDir('helper');
    t.after(() => dir.cleanup());
    const file = join(dir.path, 'a b.txt');
    await writeFile(file, 'héllo\n'.repeat(100));
    await writeFile(join(dir.path, 'empty'), '');
    const helper = runHelper(t, '/bin/sh', { HOME: dir.path });
    helper.send(`get 1 100000 - ${file}\n`);
    helper.send(`get 2 10 - ${file}\n`);
    helper.send(`get 3 10 - ${join(dir.path, 'missing')}\n`);
    helper.send(`get 4 10 - ${join(dir.path, 'empty')}\n`);
    helper.send('get 5 100000 - /proc/self/status\n');
    await waitFor(() => helper.lines.includes('done 5'), { ...SLOW, message: () => helper.lines.join('\n') });
    const parsed = helper.lines.map(parseHelperLine);
    const data = (req: number) => Buffer.from(parsed.flatMap((l) => (l?.kind === 'data' && l.req === req ? [l.base64] : [])).join(''), 'base64').toString();
    assert.equal(data(1), 'héllo\n'.repeat(100));
    assert.ok(parsed.some((l) => l?.kind === 'big' && l.req === 2));
    assert.ok(parsed.some((l) => l?.kind === 'gone' && l.req === 3));
    assert.ok(parsed.some((l) => l?.kind === 'file' && l.req === 4));
    assert.equal(data(4), '');
    assert.ok(!parsed.some((l) => l !== null && l.kind !== 'done' && 'req' in l && l.req === 5), 'a kernel file is not read');
  });

  test('tells which process holds a connection to the forwarded port, and its folder', { skip: existsSync('/proc/net/tcp') ? false : 'needs /proc (Linux)' }, async (t) => {
    const dir = await tempDir('helper');
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = createConnection({ port, host: '127.0.0.1' });
    await new Promise((resolve) => client.once('connect', resolve));
    t.after(async () => {
      client.destroy();
      server.close();
      await dir.cleanup();
    });
    const helper = runHelper(t, '/bin/sh', { HOME: dir.path });
    helper.send(`who 1 ${port}\n`);
    helper.send(`proc 2 ${process.pid}\n`);
    await waitFor(() => helper.lines.includes('done 2'), { ...SLOW, message: () => helper.lines.join('\n') });
    const conn = helper.lines.map(parseHelperLine).find((l) => l?.kind === 'conn');
    assert.ok(conn && conn.kind === 'conn', helper.lines.join('\n'));
    assert.equal(conn.agentPort, client.localPort);
    assert.equal(conn.pid, process.pid);
    assert.ok(helper.lines.includes(`cwd 2 ${process.cwd()}`), helper.lines.join('\n'));
    helper.end();
    await helper.exited;
  });
});
