// pi's saved sessions as Patchbay lists them: pi's own layouts (per folder under the agent dir,
// or flat in a session dir), each with its name, first prompt, folder, time and size; files
// that are not pi sessions, or not regular files, are passed over.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { appendFile, lstat, mkdir, open, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { SessionCatalog, piSessionDir, readSessionInfo, sessionHeader } from '../../src/rpc/session-list.ts';
import { tempDir, waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

function sessionFile(opts: { id: string; cwd: string; prompt?: string; names?: string[]; replies?: number }): string {
  let text = line({ type: 'session', version: 3, id: opts.id, timestamp: '2026-01-02T03:04:05.000Z', cwd: opts.cwd });
  text += line({ type: 'model_change', id: 'm1', parentId: null, timestamp: 't', provider: 'fake', modelId: 'fake-1' });
  text += line({ type: 'message', id: 's1', parentId: 'm1', timestamp: 't', message: { role: 'system', content: '', sections: { preamble: 'x' } } });
  for (const name of opts.names ?? []) text += line({ type: 'session_info', id: `n${name}`, parentId: 's1', timestamp: 't', name });
  if (opts.prompt !== undefined) {
    text += line({ type: 'message', id: 'u1', parentId: 's1', timestamp: 't', message: { role: 'user', content: [{ type: 'text', text: opts.prompt }] } });
  }
  for (let i = 0; i < (opts.replies ?? 0); i++) {
    text += line({ type: 'message', id: `a${i}`, parentId: 'u1', timestamp: 't', message: { role: 'assistant', content: [{ type: 'text', text: 'ok\u2028still one line' }] } });
  }
  return text;
}

test("sessions in pi's layouts are listed newest first with their name, first prompt, folder, time and size", async (t) => {
  const dir = await tempDir('session-list');
  t.after(() => dir.cleanup());
  const sessions = join(dir.path, 'agent', 'sessions');
  const perFolder = join(sessions, '--work-proj--');
  await mkdir(perFolder, { recursive: true });
  const older = join(perFolder, '2026-01-01_a.jsonl');
  const newer = join(perFolder, '2026-01-02_b.jsonl');
  await writeFile(older, sessionFile({ id: 'a', cwd: '/work/proj', prompt: 'Fix  the\nparser', names: ['First', 'Parser work'], replies: 2 }));
  await writeFile(newer, sessionFile({ id: 'b', cwd: '/work/proj', names: ['x', ''] }));
  await utimes(older, new Date(1_000_000), new Date(1_000_000));
  // Not sessions: another file, a broken one, a symlink to a session, a FIFO.
  await writeFile(join(perFolder, 'notes.txt'), 'hi');
  await writeFile(join(perFolder, 'broken.jsonl'), '{"type":"message"}\n');
  await symlink(older, join(perFolder, 'link.jsonl'));
  execFileSync('mkfifo', [join(perFolder, 'fifo.jsonl')]);
  // A flat session dir (--session-dir): files right in it.
  const flat = join(dir.path, 'flat');
  await mkdir(flat);
  const elsewhere = join(flat, 'c.jsonl');
  await writeFile(elsewhere, sessionFile({ id: 'c', cwd: '/elsewhere', prompt: 'Hello' }));
  await utimes(elsewhere, new Date(500_000), new Date(500_000));

  const catalog = new SessionCatalog();
  const listed = await catalog.list([sessions, flat, join(dir.path, 'missing')], (file) => (file === newer ? 'pi-00000001' : null));
  assert.deepEqual(
    listed.map(({ file, id, cwd, name, firstPrompt, createdAt, messages, hostedId }) => ({ file, id, cwd, name, firstPrompt, createdAt, messages, hostedId })),
    [
      { file: newer, id: 'b', cwd: '/work/proj', name: null, firstPrompt: null, createdAt: Date.parse('2026-01-02T03:04:05.000Z'), messages: 1, hostedId: 'pi-00000001' },
      { file: older, id: 'a', cwd: '/work/proj', name: 'Parser work', firstPrompt: 'Fix the parser', createdAt: Date.parse('2026-01-02T03:04:05.000Z'), messages: 4, hostedId: null },
      { file: elsewhere, id: 'c', cwd: '/elsewhere', name: null, firstPrompt: 'Hello', createdAt: Date.parse('2026-01-02T03:04:05.000Z'), messages: 2, hostedId: null },
    ],
  );
  assert.equal(listed[1]!.modifiedAt, 1_000_000);
  assert.ok(listed[1]!.bytes > 300);

  // A session that goes on is read again; the others come from what was read before.
  await appendFile(newer, line({ type: 'session_info', id: 'n2', parentId: 's1', timestamp: 't', name: 'Now named' }));
  const again = await catalog.list([sessions], () => null);
  assert.equal(again.find((s) => s.file === newer)?.name, 'Now named');
});

test("pi's session dir: the environment's, else pi's sessionDir setting, else <agent dir>/sessions", async (t) => {
  const dir = await tempDir('session-dir');
  t.after(() => dir.cleanup());
  const agentDir = join(dir.path, 'agent');
  await mkdir(agentDir);
  const log = () => {};
  assert.equal(await piSessionDir({ agentDir, envSessionDir: null }, log), join(agentDir, 'sessions'));
  await writeFile(join(agentDir, 'settings.json'), JSON.stringify({ sessionDir: '/data/pi-sessions' }));
  assert.equal(await piSessionDir({ agentDir, envSessionDir: null }, log), '/data/pi-sessions');
  assert.equal(await piSessionDir({ agentDir, envSessionDir: '/env/sessions' }, log), '/env/sessions');
  await writeFile(join(agentDir, 'settings.json'), '{ not json');
  const logs: string[] = [];
  assert.equal(await piSessionDir({ agentDir, envSessionDir: null }, (m) => logs.push(m)), join(agentDir, 'sessions'));
  assert.match(logs[0] ?? '', /settings\.json/);
});

test('a session file’s header gives its folder; a missing file or another kind of file says which', async (t) => {
  const dir = await tempDir('session-header');
  t.after(() => dir.cleanup());
  const file = join(dir.path, 's.jsonl');
  await writeFile(file, sessionFile({ id: 'h', cwd: '/work/there', prompt: 'x' }));
  assert.equal((await sessionHeader(file)).cwd, '/work/there');
  await assert.rejects(sessionHeader(join(dir.path, 'nope.jsonl')), /^Error: no pi session file at .*nope\.jsonl$/);
  await writeFile(join(dir.path, 'other.jsonl'), '{"type":"message"}\n');
  await assert.rejects(sessionHeader(join(dir.path, 'other.jsonl')), /is not a pi session file/);
  await assert.rejects(sessionHeader(dir.path), /is not a regular file/);
});

const fifos = { skip: process.platform === 'win32' ? 'no FIFOs' : false };

/** Frees whatever a test left blocked on `fifo` (a reader opened with no writer): a writer comes and goes. */
async function unblock(fifo: string): Promise<void> {
  const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
  await writer?.close();
}

/** Node's four fs threads all answer: nothing holds one. */
async function threadsFree(dir: string): Promise<void> {
  const file = join(dir, 'probe.txt');
  await writeFile(file, 'x');
  await withTimeout(Promise.all(Array.from({ length: 8 }, () => readFile(file, 'utf8'))), WAIT_MS, 'eight reads on node’s fs threads');
}

test('a session file swapped for a FIFO after it was listed is passed over at once, holding no thread', fifos, async (t) => {
  const dir = await tempDir('session-fifo');
  t.after(() => dir.cleanup());
  const file = join(dir.path, 's.jsonl');
  await writeFile(file, sessionFile({ id: 'f', cwd: '/work/f', prompt: 'x' }));
  const listed = await stat(file);
  const found = { file, bytes: listed.size, modifiedAt: listed.mtimeMs };
  await rm(file);
  execFileSync('mkfifo', [file]);
  t.after(() => unblock(file));
  assert.equal(await withTimeout(readSessionInfo(found), WAIT_MS, 'the read of a FIFO listed as a session'), null);
  await assert.rejects(withTimeout(sessionHeader(file), WAIT_MS, 'the header of a FIFO'), /s\.jsonl is not a regular file \(it is a FIFO\)/);
  await threadsFree(dir.path);
});

/**
 * Another user's loop, in a process of its own: `name` in `dir` is a session file and a FIFO in
 * turn (hard links renamed over it, so it always exists), until the test ends.
 */
async function swapping(t: TestContext, dir: string, name: string, session: string): Promise<void> {
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const script = `
    const { linkSync, renameSync } = require('node:fs');
    const [dir, name, session, fifo] = process.argv.slice(1);
    for (let i = 0; ; i++) {
      const from = i % 2 === 0 ? fifo : session;
      linkSync(from, dir + '/swap.tmp');
      renameSync(dir + '/swap.tmp', dir + '/' + name);
    }`;
  const child = spawn(process.execPath, ['-e', script, dir, name, session, fifo], { stdio: 'ignore' });
  t.after(async () => {
    child.kill('SIGKILL');
    await unblock(fifo);
  });
  // Going: the name has been seen as each in turn.
  const seen = new Set<string>();
  await waitFor(async () => {
    const info = await lstat(join(dir, name)).catch(() => null);
    if (info) seen.add(info.isFIFO() ? 'fifo' : 'file');
    return seen.size === 2;
  }, { timeoutMs: 10_000, intervalMs: 1, message: `${name} swapped between a file and a FIFO` });
}

test('listing and resuming from a folder where a session file keeps being swapped for a FIFO never hangs, and leaves node’s fs threads free', fifos, async (t) => {
  const dir = await tempDir('session-swap');
  t.after(() => dir.cleanup());
  const sessions = join(dir.path, 'sessions');
  await mkdir(sessions);
  const session = join(dir.path, 'real.jsonl');
  await writeFile(session, sessionFile({ id: 'r', cwd: '/work/r', prompt: 'x' }));
  await writeFile(join(sessions, 'steady.jsonl'), sessionFile({ id: 'steady', cwd: '/work/s', prompt: 'y' }));
  await swapping(t, sessions, 'x.jsonl', session);
  for (let i = 0; i < 40; i++) {
    // A catalog of its own each time: what one remembers is not what keeps it from hanging.
    const listed = await withTimeout(new SessionCatalog().list([sessions], () => null), WAIT_MS, `listing ${i + 1}`);
    assert.ok(listed.some((s) => s.id === 'steady'), 'the other sessions are listed');
    await withTimeout(sessionHeader(join(sessions, 'x.jsonl')).catch(() => null), WAIT_MS, `resume ${i + 1}`);
  }
  await threadsFree(dir.path);
});
