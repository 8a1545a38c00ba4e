import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { platform } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isPiCommand, likelyReason, parsePsList, PiScanner, scanPiProcesses } from '../../src/discovery/pi-scan.ts';
import { spawnLive } from './helpers.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const commands: [string[], boolean][] = [
  [['pi'], true],
  [['/usr/local/bin/pi', '--continue'], true],
  [['node', '/usr/local/bin/pi'], true],
  [['/usr/bin/node', '--import', 'tsx', '/home/u/.npm/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js', '--mode', 'rpc'], true],
  [['node22', '--enable-source-maps', '/opt/pi'], true],
  [['node', '-e', 'require("/x/pi")'], false],
  [['node', '/x/api'], false],
  [['node', '/usr/bin/npm', 'install', '@earendil-works/pi-coding-agent'], false],
  [['npm', 'install', '@earendil-works/pi-coding-agent'], false],
  [['python3', '/x/pi'], false],
  [['pip'], false],
  [['node'], false],
  [[], false],
];

for (const [argv, expected] of commands) {
  test(`${JSON.stringify(argv)} ${expected ? 'is' : 'is not'} a pi agent`, () => {
    assert.equal(isPiCommand(argv), expected);
  });
}

test('ps listings parse into pids and commands', () => {
  assert.deepEqual(parsePsList('  101 /usr/local/bin/pi --continue\n 2 node /x/y.js \n\nbogus\n'), [
    { pid: 101, command: '/usr/local/bin/pi --continue' },
    { pid: 2, command: 'node /x/y.js' },
  ]);
});

const reasons: [Parameters<typeof likelyReason>[1], string | null, string][] = [
  [{ autoconnect: true, piIdeInstalled: false }, '/p', 'pi-ide extension not found'],
  [{ autoconnect: false, piIdeInstalled: true }, '/p', 'pi-ide autoconnect is off for this folder'],
  [{ autoconnect: null, piIdeInstalled: null, folderMatched: false }, '/p', 'no editor lockfile matched its folder'],
  [{ autoconnect: true, piIdeInstalled: true, folderMatched: true, startedBeforeDoor: true }, '/p', 'started before Patchbay: connect with /ide'],
  [{ autoconnect: true, piIdeInstalled: true, folderMatched: true }, '/p', 'older pi-ide: connect with /ide'],
  [{ autoconnect: null, piIdeInstalled: null }, null, 'its folder cannot be read'],
];

for (const [facts, cwd, expected] of reasons) {
  test(`an idle pi with ${JSON.stringify(facts)} is explained as "${expected}"`, () => {
    assert.equal(likelyReason({ cwd }, facts), expected);
  });
}

test('a running pi process is found with its folder; other node processes are not', { skip: platform() !== 'linux' && 'Linux /proc scan' }, async (t) => {
  const { path: dir, cleanup } = await tempDir('piscan');
  t.after(cleanup);
  const script = join(dir, 'pi');
  await writeFile(script, 'setInterval(() => {}, 1000);\n');
  const pi = await spawnLive([script, '--continue'], dir);
  t.after(() => pi.kill());
  const other = await spawnLive(['-e', 'setInterval(() => {}, 1000)'], dir);
  t.after(() => other.kill());

  const found = await scanPiProcesses();
  assert.deepEqual(
    found.filter((p) => p.pid === pi.pid),
    [{ pid: pi.pid, cwd: await realpath(dir), command: `${process.execPath} ${script} --continue` }],
  );
  assert.equal(found.some((p) => p.pid === other.pid || p.pid === process.pid), false);
});

test('scan after scan, a process is read twice and then known: only new processes cost a read', { skip: platform() !== 'linux' && 'Linux /proc scan' }, async (t) => {
  const other = await spawnLive();
  t.after(() => other.kill());
  const reads = new Map<number, number>();
  const scanner = new PiScanner((pid) => {
    reads.set(pid, (reads.get(pid) ?? 0) + 1);
    return readFile(`/proc/${pid}/cmdline`, 'utf8');
  });
  for (let i = 0; i < 4; i++) await scanner.scan();
  assert.equal(reads.get(other.pid), 2, 'read on its first two looks only');
  assert.equal(reads.has(process.pid), false, 'the scanning process itself is never read');
});

test('a process that becomes pi after the first look (a shell that execs it) is found by the next scan', { skip: platform() !== 'linux' && 'Linux /proc scan' }, async (t) => {
  const { path: dir, cleanup } = await tempDir('piscan-exec');
  t.after(cleanup);
  const script = join(dir, 'pi');
  await writeFile(script, 'setInterval(() => {}, 1000);\n');
  // The shell waits for a line, then replaces itself with pi: same pid, new command line.
  const shell = spawn('/bin/sh', ['-c', `read go; exec "${process.execPath}" "${script}"`], { stdio: ['pipe', 'ignore', 'ignore'], cwd: dir });
  await once(shell, 'spawn');
  t.after(() => shell.kill('SIGKILL'));
  const scanner = new PiScanner();
  assert.equal((await scanner.scan()).some((p) => p.pid === shell.pid), false, 'a shell is not pi');
  shell.stdin!.write('go\n');
  await waitFor(async () => (await readFile(`/proc/${shell.pid}/cmdline`, 'utf8')).includes(script), { message: 'the shell to exec pi' });
  const found = await scanner.scan();
  assert.deepEqual(
    found.filter((p) => p.pid === shell.pid),
    [{ pid: shell.pid, cwd: await realpath(dir), command: `${process.execPath} ${script}` }],
  );
});

const canSwitchUser = platform() === 'linux' && process.getuid?.() === 0;

test('another user’s pi is not listed', { skip: !canSwitchUser && 'needs root on Linux to start a process as another user' }, async (t) => {
  const { path: dir, cleanup } = await tempDir('piscan-other');
  t.after(cleanup);
  // `pi` as its program name, run as nobody (uid 65534).
  const theirs = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { argv0: 'pi', uid: 65534, gid: 65534, stdio: 'ignore', cwd: '/' });
  await once(theirs, 'spawn');
  t.after(() => theirs.kill('SIGKILL'));
  const ours = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { argv0: 'pi', stdio: 'ignore', cwd: dir });
  await once(ours, 'spawn');
  t.after(() => ours.kill('SIGKILL'));
  const found = await scanPiProcesses();
  assert.ok(found.some((p) => p.pid === ours.pid), 'this user’s pi is listed');
  assert.ok(!found.some((p) => p.pid === theirs.pid), 'another user’s is not');
});
