import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseLockfile, portFromName, readLockfile, serializeLockfile } from '../../src/protocol/lockfile.ts';
import { tempDir } from '../peers/wait.ts';

const good = { pid: 4242, workspaceFolders: ['/home/me/project'], ideName: 'Neovim', transport: 'ws', authToken: 'tok' };
const cap = 65536;

let dir: string;
let cleanup: () => Promise<void>;
before(async () => ({ path: dir, cleanup } = await tempDir('lockfile')));
after(() => cleanup());

test('a well-formed lockfile is read, with the port from its name and extra keys dropped', async () => {
  const path = join(dir, '4711.lock');
  await writeFile(path, JSON.stringify({ ...good, port: 9999, runningInWindows: false }));
  const result = await readLockfile(path, 'pi', cap);
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.entry.port, 4711);
  assert.equal(result.entry.dialect, 'pi');
  assert.equal(result.entry.dir, dir);
  assert.equal(result.entry.path, path);
  assert.deepEqual(result.entry.lock, good);
});

const contentCases: { name: string; body: string; reason: RegExp }[] = [
  { name: 'garbage', body: 'not json at all {', reason: /^not JSON: Unexpected token/ },
  { name: 'empty file', body: '', reason: /^not JSON: / },
  { name: 'an array', body: '[1,2]', reason: /^not a JSON object$/ },
  { name: 'pid as a string', body: JSON.stringify({ ...good, pid: '4242' }), reason: /^"pid" must be a positive integer$/ },
  { name: 'negative pid', body: JSON.stringify({ ...good, pid: -3 }), reason: /^"pid" must be a positive integer$/ },
  { name: 'fractional pid', body: JSON.stringify({ ...good, pid: 1.5 }), reason: /^"pid" must be a positive integer$/ },
  { name: 'missing pid', body: JSON.stringify({ ...good, pid: undefined }), reason: /^"pid" is missing$/ },
  {
    name: 'relative folder',
    body: JSON.stringify({ ...good, workspaceFolders: ['project'] }),
    reason: /^"workspaceFolders" must be a list of absolute paths$/,
  },
  {
    name: 'folders not a list',
    body: JSON.stringify({ ...good, workspaceFolders: '/a' }),
    reason: /^"workspaceFolders" must be a list of absolute paths$/,
  },
  { name: 'ideName a number', body: JSON.stringify({ ...good, ideName: 3 }), reason: /^"ideName" must be a string$/ },
  { name: 'transport sse', body: JSON.stringify({ ...good, transport: 'sse' }), reason: /^"transport" must be "ws"$/ },
  { name: 'empty token', body: JSON.stringify({ ...good, authToken: '' }), reason: /^"authToken" must be a non-empty string$/ },
  { name: 'huge file', body: JSON.stringify({ ...good, padding: 'x'.repeat(cap) }), reason: /^larger than 65536 bytes$/ },
];

for (const { name, body, reason } of contentCases) {
  test(`a lockfile with ${name} is refused with a reason`, async () => {
    const path = join(dir, '5000.lock');
    await writeFile(path, body);
    const result = await readLockfile(path, 'claude', cap);
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.path, path);
    assert.match(result.reason, reason);
  });
}

test('lockfiles with a name other than <port>.lock are refused', async () => {
  for (const name of ['editor.lock', '0.lock', '65536.lock', '4711.lck', '4711.lock.bak', '-1.lock']) {
    const path = join(dir, name);
    await writeFile(path, JSON.stringify(good));
    const result = await readLockfile(path, 'pi', cap);
    assert.ok(!result.ok, name);
    assert.equal(result.reason, 'file name is not <port>.lock', name);
  }
  assert.equal(portFromName('65535.lock'), 65535);
  assert.equal(portFromName('1.lock'), 1);
});

test('a symlinked lockfile is refused, even one pointing at a good lockfile', async () => {
  const target = join(dir, 'target.json');
  await writeFile(target, JSON.stringify(good));
  const path = join(dir, '5001.lock');
  await symlink(target, path);
  const result = await readLockfile(path, 'pi', cap);
  assert.ok(!result.ok);
  assert.equal(result.reason, 'it is a symlink');
});

test('a directory or FIFO named like a lockfile is refused without hanging', async () => {
  const folder = join(dir, '5002.lock');
  await mkdir(folder);
  const asDir = await readLockfile(folder, 'pi', cap);
  assert.ok(!asDir.ok);
  assert.equal(asDir.reason, 'it is a directory');

  const fifo = join(dir, '5003.lock');
  const made = spawnSync('mkfifo', [fifo]);
  if (made.status !== 0) return; // no mkfifo on this system: the directory case stands
  const asFifo = await readLockfile(fifo, 'pi', cap);
  assert.ok(!asFifo.ok);
  assert.equal(asFifo.reason, 'it is a FIFO');
});

test('a lockfile that vanished is reported as missing, not as broken', async () => {
  const result = await readLockfile(join(dir, '5004.lock'), 'pi', cap);
  assert.ok(!result.ok);
  assert.equal(result.failure, 'missing');
});

test('serializing keeps exactly the protocol fields and parses back', () => {
  const text = serializeLockfile({ ...good, transport: 'ws', extra: 1 } as typeof good & { transport: 'ws' });
  assert.deepEqual(Object.keys(JSON.parse(text)), ['pid', 'workspaceFolders', 'ideName', 'transport', 'authToken']);
  const parsed = parseLockfile(JSON.parse(text));
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.lock, good);
});

test("another protocol's lockfile is told apart by its `protocol` field, whatever its name, and named for people", async () => {
  const v1 = { protocol: 'pi-ide', version: 1, port: 51234, pid: 77, workspaces: ['/home/me/project'], ide: 'VS Code', token: 'secret' };
  for (const name of ['51234.lock', 'vscode-window.lock']) {
    const path = join(dir, name);
    await writeFile(path, JSON.stringify(v1));
    const result = await readLockfile(path, 'pi', cap);
    assert.ok(!result.ok && result.failure === 'other', JSON.stringify(result));
    assert.deepEqual(result.other, { path, protocol: 'pi-ide', description: 'Pi IDE Protocol v1 (VS Code, pid 77)' });
    assert.doesNotMatch(result.reason, /secret/, 'its token is no one else’s business');
  }
  const unknown = join(dir, '4712.lock');
  await writeFile(unknown, JSON.stringify({ protocol: 'acme-ide', version: '3' }));
  const result = await readLockfile(unknown, 'pi', cap);
  assert.ok(!result.ok && result.failure === 'other');
  assert.equal(result.other.description, 'the "acme-ide" protocol v3');
});
