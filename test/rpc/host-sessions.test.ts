// PiHost as a whole pi client, over the fake pi (fast; the real pi runs the same paths in
// hosted-pi-client.test.ts): sessions outlive the host and resume on their file with the same
// id, one pi per session file, pi's saved sessions, the TUI's commands as RPC commands, the
// queue, images and shell runs.
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HubError, type TranscriptItem } from '../../src/api/types.ts';
import { pidAlive } from '../../src/discovery/liveness.ts';
import { PiHost, type PiHostOptions } from '../../src/rpc/host.ts';
import { HostedStore } from '../../src/rpc/hosted-store.ts';
import { refuseExtensions } from '../../src/rpc/start-args.ts';
import { TSX_LOADER } from '../peers/spawn.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const FAKE = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

interface World {
  root: string;
  home: string;
  agentDir: string;
  work: string;
  events: { id: string; event: Record<string, unknown> }[];
  /** A host as the hub makes one: remembering sessions in `home`. */
  open(overrides?: Partial<PiHostOptions>): Promise<{ pi: PiHost; store: HostedStore; close(): Promise<void> }>;
}

async function world(t: TestContext): Promise<World> {
  const dir = await tempDir('host-sessions');
  const home = join(dir.path, 'home');
  const agentDir = join(dir.path, 'agent');
  const work = join(dir.path, 'work');
  await mkdir(work);
  const events: World['events'] = [];
  // Hosts close (their writes land) before the folder goes.
  const closers: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const close of closers) await close();
    await dir.cleanup();
  });
  const open: World['open'] = async (overrides = {}) => {
    const store = await HostedStore.open(home, () => {});
    const pi = new PiHost({
      command: () => [process.execPath, '--import', TSX_LOADER, FAKE],
      env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
      startTimeoutMs: 10_000,
      commandTimeoutMs: 5000,
      stopGraceMs: 500,
      ideConnectMs: null,
      reviewWaitMs: 5000,
      checkArgs: (args, command) => refuseExtensions(args, true, command),
      memory: store,
      sessionDir: async () => join(agentDir, 'sessions'),
      onEvent: (id, event) => events.push({ id, event }),
      onChange: () => {},
      onFoldersChanged: async () => {},
      door: () => null,
      sessionIdForPid: () => null,
      log: () => {},
      ...overrides,
    });
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await pi.close();
      await store.close();
    };
    closers.push(close);
    return { pi, store, close };
  };
  return { root: dir.path, home, agentDir, work, events, open };
}

const texts = (items: TranscriptItem[]) => items.map((i) => ('text' in i ? `${i.kind}: ${i.text}` : i.kind === 'bash' ? `bash: ${i.command} → ${i.output.trim()}` : i.kind));

test('a hosted session outlives the host: listed stopped and resumable, resumed with the same id on its file, its transcript from pi', async (t) => {
  const w = await world(t);
  const first = await w.open();
  const started = await first.pi.start({ cwd: w.work, model: 'fake/fake-2', args: ['--session-dir', join(w.agentDir, 'mine')] });
  await first.pi.prompt(started.id, 'hello');
  const file = first.pi.views()[0]!.sessionFile!;
  assert.match(file, new RegExp(`^${join(w.agentDir, 'mine')}/.+\\.jsonl$`));
  await first.pi.setName(started.id, 'Greeting');
  // Patchbay stops (its pi with it).
  await first.close();
  assert.equal(pidAlive(started.pid!), false);

  const second = await w.open();
  const [listed] = second.pi.views();
  assert.equal(listed?.id, started.id);
  assert.equal(listed?.status, 'exited');
  assert.equal(listed?.resumable, true);
  assert.equal(listed?.sessionFile, file);
  assert.equal(listed?.sessionName, 'Greeting');
  assert.equal(listed?.pid, null);
  await assert.rejects(second.pi.prompt(started.id, 'hi'), (err: unknown) => err instanceof HubError && /has exited: .*resume it to go on/.test(err.message));

  const resumed = await second.pi.resume({ id: started.id });
  assert.equal(resumed.id, started.id);
  assert.equal(resumed.status, 'idle');
  assert.equal(resumed.sessionFile, file);
  assert.equal(resumed.model, 'fake/fake-2', 'the model it last used');
  assert.notEqual(resumed.pid, started.pid);
  assert.deepEqual(texts(second.pi.detail(started.id).transcript), [`notice: Resumed ${file}`, 'user: hello', 'assistant: You said: hello']);
  assert.ok(w.events.some((e) => e.id === started.id && e.event.type === 'hosted_transcript'), 'faces are told to read it again');
  // pi's own list has it, named, marked as hosted; the --session-dir it used is searched too.
  const saved = await second.pi.savedSessions();
  assert.deepEqual(saved.map((s) => [s.file, s.name, s.firstPrompt, s.hostedId]), [[file, 'Greeting', 'hello', started.id]]);
});

test('one pi per session file: resuming or starting on a file a hosted pi runs returns that pi', async (t) => {
  const w = await world(t);
  const { pi } = await w.open();
  const a = await pi.start({ cwd: w.work });
  await pi.prompt(a.id, 'make a file');
  const file = pi.views()[0]!.sessionFile!;
  const [byFile, again] = await Promise.all([pi.resume({ sessionFile: file }), pi.resume({ sessionFile: file })]);
  assert.equal(byFile.id, a.id);
  assert.equal(again.id, a.id);
  assert.equal(byFile.pid, a.pid);
  const b = await pi.start({ cwd: w.work, args: ['--session', file] });
  assert.equal(b.id, a.id, 'the running one is returned');
  assert.deepEqual(pi.views().map((v) => v.id), [a.id]);
  assert.equal((await pi.resume({ id: a.id })).pid, a.pid, 'resuming a running session is a no-op');
});

test("one of pi's saved sessions (not hosted) is opened by its file, in its own folder, with its conversation", async (t) => {
  const w = await world(t);
  const { pi } = await w.open();
  const a = await pi.start({ cwd: w.work });
  await pi.prompt(a.id, 'remember me');
  const file = pi.views()[0]!.sessionFile!;
  await pi.stop(a.id); // forgotten by Patchbay; pi's file stays
  assert.deepEqual(pi.views(), []);
  const [saved] = await pi.savedSessions(join(w.agentDir, 'sessions'));
  assert.equal(saved?.file, file);
  assert.equal(saved?.hostedId, null);
  assert.equal(saved?.cwd, w.work);

  const opened = await pi.resume({ sessionFile: file });
  assert.notEqual(opened.id, a.id);
  assert.equal(opened.cwd, w.work);
  assert.equal(opened.sessionFile, file);
  assert.deepEqual(texts(pi.detail(opened.id).transcript).slice(1), ['user: remember me', 'assistant: You said: remember me']);
  await assert.rejects(pi.resume({ sessionFile: join(w.root, 'nope.jsonl') }), (err: unknown) => err instanceof HubError && err.code === 'not-found');
});

test('a resumed session’s arguments are checked again: an extension needs the person’s leave then too', async (t) => {
  const w = await world(t);
  let allowed = true;
  const { pi } = await w.open({ checkArgs: (args, command) => refuseExtensions(args, allowed, command) });
  const a = await pi.start({ cwd: w.work, args: ['-e', join(w.root, 'ext.ts')] });
  await pi.prompt(a.id, 'hi');
  await pi.stop(a.id, true);
  allowed = false;
  await assert.rejects(pi.resume({ id: a.id }), /^HubError: pi\.resume: "args" would load code into pi \(-e\)/);
  assert.equal(pi.views()[0]?.status, 'exited');
  allowed = true;
  assert.equal((await pi.resume({ id: a.id })).status, 'idle');
});

test("pi's terminal commands run as RPC commands, never as text for the model", async (t) => {
  const w = await world(t);
  const { pi } = await w.open();
  const { id } = await pi.start({ cwd: w.work });
  assert.deepEqual(await pi.prompt(id, 'first prompt'), { ran: 'prompt', disposition: 'started' });
  await pi.prompt(id, 'second prompt');
  // pi answers a prompt before the turn's records: count once both turns are in.
  const prompts = () => pi.detail(id).transcript.filter((i) => i.kind === 'user').length;
  await waitFor(() => prompts() === 2 && pi.views()[0]?.status === 'idle', { message: 'both turns in' });

  assert.deepEqual(await pi.prompt(id, '/name Parser work'), { ran: 'name', name: 'Parser work' });
  assert.equal(pi.views()[0]?.sessionName, 'Parser work');
  const compacted = await pi.prompt(id, '/compact keep the names');
  assert.equal(compacted.ran, 'compact');
  assert.match(JSON.stringify(compacted), /keep the names/);
  const exported = await pi.prompt(id, '/export out.html');
  assert.deepEqual(exported, { ran: 'export', path: join(w.work, 'out.html') });
  assert.match(await readFile(join(w.work, 'out.html'), 'utf8'), /Parser work/);
  const defaultExport = await pi.exportHtml(id);
  assert.ok(defaultExport.path.startsWith(`${w.work}/pi-session-`), `made absolute: ${defaultExport.path}`);
  const ran = await pi.prompt(id, '!echo from the shell');
  assert.deepEqual(ran, { ran: 'bash', result: { output: 'from the shell\n', exitCode: 0, cancelled: false, truncated: false } });
  await pi.prompt(id, '!!echo private');
  const shells = pi.detail(id).transcript.filter((i) => i.kind === 'bash');
  assert.deepEqual(shells.map((b) => b.kind === 'bash' && [b.command, b.output, b.exitCode, b.excluded, b.done]), [
    ['echo from the shell', 'from the shell\n', 0, false, true],
    ['echo private', 'private\n', 0, true, true],
  ]);
  assert.equal(prompts(), 2, 'none of it was sent as a prompt');
  await assert.rejects(pi.prompt(id, '/resume'), (err: unknown) => err instanceof HubError && err.code === 'invalid' && /past sessions/.test(err.message));

  const before = pi.views()[0]!.sessionFile;
  const forked = await pi.prompt(id, '/fork second');
  assert.deepEqual(forked, { ran: 'fork', text: 'second prompt', cancelled: false });
  const afterFork = pi.detail(id);
  assert.notEqual(afterFork.sessionFile, before, 'a new session file');
  assert.deepEqual(texts(afterFork.transcript).filter((x) => x.startsWith('user')), ['user: first prompt'], 'the conversation before that prompt');
  assert.match(texts(afterFork.transcript).at(-1)!, /^notice: Forked into a new session, from before “second prompt”/);
  await assert.rejects(pi.prompt(id, '/fork nothing like it'), (err: unknown) => err instanceof HubError && err.code === 'not-found');

  assert.deepEqual(await pi.prompt(id, '/clone'), { ran: 'clone', cancelled: false });
  assert.deepEqual(await pi.prompt(id, '/new'), { ran: 'new', cancelled: false });
  assert.deepEqual(texts(pi.detail(id).transcript), ['notice: Started a new session']);
  assert.deepEqual(await pi.prompt(id, '/model fake/fake-2'), { ran: 'model', model: 'fake/fake-2' });
  assert.deepEqual(await pi.thinkingLevels(id), ['off', 'minimal', 'low', 'medium', 'high']);
  assert.deepEqual(await pi.prompt(id, '/thinking high'), { ran: 'thinking', level: 'high' });
  assert.deepEqual((await pi.commands(id)).map((c) => c.name), ['llama', 'mcp'], "pi 1.6's own commands");
});

test('switching a hosted pi to another session file: refused for a missing file or one another hosted pi runs', async (t) => {
  const w = await world(t);
  const { pi } = await w.open();
  const a = await pi.start({ cwd: w.work });
  await pi.prompt(a.id, 'in a');
  const b = await pi.start({ cwd: w.work });
  await pi.prompt(b.id, 'in b');
  const fileA = pi.detail(a.id).sessionFile!;
  await assert.rejects(pi.switchSession(b.id, fileA), (err: unknown) => err instanceof HubError && err.code === 'conflict' && new RegExp(a.id).test(err.message));
  await assert.rejects(pi.switchSession(b.id, join(w.root, 'missing.jsonl')), (err: unknown) => err instanceof HubError && err.code === 'not-found');
  await pi.stop(a.id, true);
  assert.deepEqual(await pi.switchSession(b.id, fileA), { cancelled: false });
  assert.deepEqual(texts(pi.detail(b.id).transcript).slice(0, 2), ['user: in a', 'assistant: You said: in a']);
  // Its old session now runs in b: resuming it gives b, not a second pi on the file.
  assert.equal((await pi.resume({ id: a.id })).id, b.id);
});

test('the queue: prompts sent while pi works wait in it, shown in order; cleared, they come back; modes and switches apply', async (t) => {
  const w = await world(t);
  const { pi } = await w.open();
  const { id } = await pi.start({ cwd: w.work });
  await pi.prompt(id, 'hold working on it');
  await waitFor(() => pi.views()[0]?.status === 'streaming', { message: 'pi working' });
  await assert.rejects(pi.prompt(id, 'no behaviour'), /Agent is already processing/);
  await pi.prompt(id, 'change course', 'steer');
  await pi.prompt(id, 'and then this', 'followUp');
  assert.deepEqual(pi.detail(id).queue, { steering: ['change course'], followUp: ['and then this'] });
  assert.deepEqual(await pi.clearQueue(id), { steering: ['change course'], followUp: ['and then this'] });
  assert.deepEqual(pi.detail(id).queue, { steering: [], followUp: [] });
  await pi.abort(id);
  await pi.setQueueModes(id, { steering: 'all', followUp: 'all' });
  await pi.setAutoCompaction(id, false);
  await pi.setAutoRetry(id, false);
  assert.deepEqual(pi.detail(id).settings, { steeringMode: 'all', followUpMode: 'all', autoCompaction: false, autoRetry: false });
});

test('images go to pi with the prompt; a write’s review is noted on its card and remembered', async (t) => {
  const w = await world(t);
  const first = await w.open();
  const { id } = await first.pi.start({ cwd: w.work });
  await first.pi.prompt(id, 'what is this', undefined, [{ data: PNG_1PX, mimeType: 'image/png' }]);
  const user = await waitFor(() => first.pi.detail(id).transcript.find((i) => i.kind === 'user'), { message: 'the prompt in the transcript' });
  assert.deepEqual(user && { ...user, at: 0 }, { kind: 'user', text: 'what is this', images: 1, at: 0 });
  await assert.rejects(first.pi.prompt(id, '/compact', undefined, [{ data: PNG_1PX, mimeType: 'image/png' }]), /images go with a prompt/);

  const call = { type: 'tool_execution_start', toolCallId: 'call_w', toolName: 'write', args: { path: 'a.txt', content: 'x' } };
  await first.pi.prompt(id, `emit ${JSON.stringify([call])}`);
  first.pi.noteDiff({ id: 'd5', sessionId: 's1', editorId: null, tool: 'write', path: join(w.work, 'a.txt'), tabName: 'pi-write:call_w', status: 'pending', createdAt: 1, isNew: true, tooLarge: false, inEditor: false });
  const card = first.pi.detail(id).transcript.find((i) => i.kind === 'tool');
  assert.equal(card?.kind === 'tool' && card.diffId, 'd5');
  assert.ok(w.events.some((e) => e.event.type === 'hosted_review' && e.event.diffId === 'd5'));
  await first.close();
  const again = await w.open();
  assert.deepEqual(again.store.list()[0]?.reviews, { call_w: 'd5' });
});
