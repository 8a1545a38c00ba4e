// One daemon per home, however many are started at once: the real binary, ten times.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../peers/wait.ts';
import { isolatedEnv, status } from './daemon-process.ts';

const BIN = fileURLToPath(new URL('../../src/cli/bin.mjs', import.meta.url));

// A timeout: a start that neither comes up nor gives up (or a daemon that ignores SIGTERM) fails the test, not the suite.
test('of 10 simultaneous `patchbay daemon` starts exactly one runs; the others say which pid holds the home', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir('daemon-lock');
  t.after(() => dir.cleanup());
  const env = await isolatedEnv(dir.path);
  const starts = Array.from({ length: 10 }, () => {
    const child = spawn(process.execPath, [BIN, 'daemon'], { env: env.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    // Settles when this start has either come up or given up.
    const settled = new Promise<'running' | number>((resolve) => {
      const check = (): void => void (output.includes(' running (pid ') && resolve('running'));
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.once('exit', (code) => resolve(code ?? -1));
    });
    return { child, settled, output: () => output };
  });
  t.after(() => {
    for (const { child } of starts) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  const outcomes = await Promise.all(starts.map((s) => s.settled));
  const running = starts.filter((_, i) => outcomes[i] === 'running');
  assert.equal(running.length, 1, starts.map((s, i) => `#${i} ${String(outcomes[i])}: ${s.output()}`).join('\n'));
  const winner = running[0]!;
  const home = env.env.PATCHBAY_HOME!;
  for (const [i, start] of starts.entries()) {
    if (start === winner) continue;
    assert.equal(outcomes[i], 1, start.output());
    assert.equal(start.output(), `patchbay: Patchbay is already running for ${home} (pid ${winner.child.pid}, the daemon)\n`);
  }
  const door = (await status(env)).door;
  assert.deepEqual(await readdir(env.piLockDir).then((names) => names.filter((f) => f.endsWith('.lock'))), [`${door.port}.lock`], 'one door published');

  winner.child.kill('SIGTERM');
  const code = await new Promise((resolve) => winner.child.once('exit', resolve));
  assert.equal(code, 0, winner.output());
  const left = await readdir(home);
  assert.ok(left.includes('browser.json'), `the home was used: ${left.join(', ')}`);
  assert.deepEqual(left.filter((f) => f.startsWith('patchbay.sock') || f === 'control.json'), [], 'no lock left behind');
});
