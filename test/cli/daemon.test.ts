// The real `patchbay daemon` (real hub) as its own process, driven through the real CLI.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { FakePiClient } from '../peers/fake-pi.ts';
import { START_MS, tempDir, waitFor } from '../peers/wait.ts';

const BIN = fileURLToPath(new URL('../../src/cli/bin.mjs', import.meta.url));

function isolatedEnv(root: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATCHBAY_HOME: join(root, 'home'),
    PI_IDE_LOCK_DIR: join(root, 'pi-ide'),
    CLAUDE_CONFIG_DIR: join(root, 'claude'),
    PI_CODING_AGENT_DIR: join(root, 'pi-agent'),
    PATCHBAY_SCAN_PROCESSES: '0',
    BROWSER: '',
  };
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: START_MS }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** `patchbay daemon` as its own process, once it has printed its ports; killed after the test. */
async function startDaemon(t: TestContext, env: NodeJS.ProcessEnv) {
  const daemon = spawn(process.execPath, [BIN, 'daemon'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
  });
  const output = { stdout: '', stderr: '' };
  daemon.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  daemon.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<number | null>((r) => daemon.once('exit', (code) => r(code)));
  await waitFor(() => output.stdout.includes('\n'), { message: 'the daemon to report its ports', timeoutMs: START_MS });
  return { daemon, output, exited };
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`patchbay daemon serves the CLI and stops cleanly on ${signal}, removing its files`, async (t) => {
    const dir = await tempDir('daemon');
    t.after(() => dir.cleanup());
    const env = isolatedEnv(dir.path);
    const { daemon, output, exited } = await startDaemon(t, env);
    const stdout = output.stdout;
    const match = /^Patchbay \S+ running \(pid (\d+)\): door 127\.0\.0\.1:(\d+), control http:\/\/127\.0\.0\.1:\d+\n$/.exec(stdout);
    assert.ok(match, `unexpected first line: ${stdout}`);
    assert.equal(Number(match[1]), daemon.pid);
    const doorPort = Number(match[2]);

    const status = await cli(['status', '--json'], env);
    assert.equal(status.code, 0, status.stderr);
    const snapshot = JSON.parse(status.stdout);
    assert.equal(snapshot.door.port, doorPort);
    assert.ok(snapshot.door.lockfiles.includes(join(dir.path, 'pi-ide', `${doorPort}.lock`)));
    assert.ok(existsSync(join(dir.path, 'home', 'control.json')));

    const unknown = await cli(['diffs', 'reject', 'no-such-diff'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^patchbay: .*no-such-diff/);

    daemon.kill(signal);
    assert.equal(await exited, 0, output.stderr);
    assert.match(output.stderr, new RegExp(`stopping \\(${signal}\\)`));
    assert.doesNotMatch(output.stderr, /without cleaning up/);
    assert.ok(!existsSync(join(dir.path, 'home', 'control.json')), 'control.json is removed');
    assert.deepEqual(await readdir(join(dir.path, 'pi-ide')).then((names) => names.filter((n) => n.endsWith('.lock'))), []);

    const after = await cli(['status'], env);
    assert.equal(after.code, 1);
    assert.match(after.stderr, /Patchbay is not running/);
  });
}

test('stopping the daemon with an edit pending rejects it and says so in the terminal, one line per edit', async (t) => {
  const dir = await tempDir('daemon-pending');
  t.after(() => dir.cleanup());
  const env = isolatedEnv(dir.path);
  const { daemon, output, exited } = await startDaemon(t, env);
  const stdout = output.stdout;
  const doorPort = Number(/door 127\.0\.0\.1:(\d+)/.exec(stdout)![1]);
  const door = JSON.parse(await readFile(join(dir.path, 'pi-ide', `${doorPort}.lock`), 'utf8')) as { authToken: string };

  const file = join(dir.path, 'a.txt');
  await writeFile(file, 'old\n');
  const pi = await FakePiClient.connect({ cwd: dir.path, port: doorPort, authToken: door.authToken });
  t.after(() => pi.close());
  const outcome = pi.write(file, 'new\n');
  await waitFor(async () => JSON.parse((await cli(['status', '--json'], env)).stdout).diffs.length === 1, { message: 'the edit waiting' });

  daemon.kill('SIGTERM');
  assert.equal((await outcome).outcome, 'rejected', 'the agent hears a rejection, so it does not write unreviewed');
  assert.equal(await exited, 0, output.stderr);
  assert.ok(output.stderr.includes(`patchbay: rejected d1 (${file}): Patchbay is stopping\n`), output.stderr);
  assert.equal(output.stderr.match(/: rejected d\d+ /g)?.length, 1);
});
