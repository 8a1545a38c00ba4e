// pi's saved sessions as Patchbay lists them: pi's own layouts (per folder under the agent dir,
// or flat in a session dir), each with its name, first prompt, folder, time and size; files
// that are not pi sessions, or not regular files, are passed over.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { SessionCatalog, piSessionDir, sessionHeader } from '../../src/rpc/session-list.ts';
import { tempDir } from '../peers/wait.ts';

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
