// The real `patchbay` executable, as a separate process, against a control server in this one.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startControlServer } from '../../src/web/control-server.ts';
import { createFakeHub } from '../web/fake-hub.ts';
import { START_MS, tempDir, waitFor } from '../peers/wait.ts';
import { startFakeDaemon } from './fake-daemon.ts';

const BIN = fileURLToPath(new URL('../../src/cli/bin.mjs', import.meta.url));

function patchbay(args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, PATCHBAY_HOME: home };
    execFile(process.execPath, [BIN, ...args], { env, timeout: START_MS }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

test('the patchbay binary prints the status of a running daemon', async (t) => {
  const dir = await tempDir('bin');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const hub = createFakeHub();
  const server = await startControlServer({ hub, host: '127.0.0.1', port: 0, home, version: 'test' });
  t.after(() => server.close());

  const human = await patchbay(['status'], home);
  assert.equal(human.stderr, '');
  assert.equal(human.code, 0);
  assert.match(human.stdout, /^Door: 127\.0\.0\.1:40123$/m);
  assert.match(human.stdout, /^Pending diffs: 2$/m);

  const json = await patchbay(['status', '--json'], home);
  assert.equal(json.code, 0);
  assert.deepEqual(JSON.parse(json.stdout), hub.state);
});

test('the patchbay binary exits 1 with a clear message when no daemon runs', async (t) => {
  const dir = await tempDir('bin');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const { code, stdout, stderr } = await patchbay(['status'], home);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.equal(stderr, `patchbay: Patchbay is not running (no ${join(home, 'control.json')}). Start it with: patchbay daemon\n`);
});

/** `patchbay …` left running: its stdout as lines, and the process to signal. */
function follow(args: string[], home: string) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, PATCHBAY_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, lines, stderr: () => stderr, exited };
}

test('patchbay events --json streams the daemon’s events until Ctrl-C, then exits 0', async (t) => {
  const { home, hub } = await startFakeDaemon(t, 'bin');
  const run = follow(['events', '--json'], home);
  t.after(() => run.child.kill('SIGKILL'));
  await waitFor(() => run.lines.length === 1, { timeoutMs: START_MS, message: () => `the first line; stderr: ${run.stderr()}` });
  assert.equal(JSON.parse(run.lines[0]!).type, 'snapshot');
  hub.emit({ type: 'diffAdded', diff: hub.state.diffs[0]! });
  await waitFor(() => run.lines.length === 2, { message: 'the diffAdded line' });
  assert.deepEqual(JSON.parse(run.lines[1]!).diff, hub.state.diffs[0]);
  run.child.kill('SIGINT');
  assert.deepEqual(await run.exited, { code: 0, signal: null });
  assert.equal(run.stderr(), '');
});

test('patchbay events --json ends quietly when its reader goes away (| head -1)', async (t) => {
  const { home, hub } = await startFakeDaemon(t, 'bin');
  const run = follow(['events', '--json'], home);
  t.after(() => run.child.kill('SIGKILL'));
  await waitFor(() => run.lines.length === 1, { timeoutMs: START_MS, message: () => `the first line; stderr: ${run.stderr()}` });
  run.child.stdout.destroy();
  // The next write finds the pipe closed.
  hub.emit({ type: 'diffAdded', diff: hub.state.diffs[0]! });
  assert.deepEqual(await run.exited, { code: 0, signal: null });
  assert.equal(run.stderr(), '');
});

/** The node built-in modules a `patchbay` run loaded, reported by test/cli/loaded-modules.mjs as it exits. */
async function builtinsLoaded(args: string[], home: string): Promise<string[]> {
  const probe = new URL('./loaded-modules.mjs', import.meta.url).href;
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, ['--import', probe, BIN, ...args], { env: { ...process.env, PATCHBAY_HOME: home }, timeout: START_MS }, (err, _out, stderr) =>
      resolve({ code: err ? Number(err.code) : 0, stderr }),
    );
  });
  const report = /^loaded: (.*)$/m.exec(stderr);
  assert.ok(report, `the probe's report in: ${stderr}`);
  assert.equal(code, 0, stderr);
  return JSON.parse(report[1]!) as string[];
}

test('patchbay --help starts without the socket client, and status without the daemon’s code', async (t) => {
  const { home } = await startFakeDaemon(t, 'bin');
  const help = await builtinsLoaded(['--help'], home);
  for (const heavy of ['http', 'crypto', 'zlib', 'child_process']) assert.ok(!help.includes(heavy), `--help loaded ${heavy}: ${help.join(' ')}`);
  const status = await builtinsLoaded(['status', '--json'], home);
  assert.ok(status.includes('http'), `status talks to the daemon: ${status.join(' ')}`);
  // The hub (process lookup, hosted pi) and the app launcher need it; the CLI's client does not.
  assert.ok(!status.includes('child_process'), `status loaded child_process: ${status.join(' ')}`);
});
