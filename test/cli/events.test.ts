// `patchbay events` and `patchbay status --watch` against the in-memory hub behind a real control
// server: what a subscriber prints as Patchbay changes, and how it ends.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { HubEvent } from '../../src/api/types.ts';
import { main } from '../../src/cli/main.ts';
import { sampleSnapshot } from '../web/fake-hub.ts';
import { waitFor } from '../peers/wait.ts';
import { startFakeDaemon } from './fake-daemon.ts';

async function withDaemon(t: TestContext) {
  const { dir, home, hub, server } = await startFakeDaemon(t, 'cli-events');
  /** Starts a command that runs until `interrupt()`; its output is read as it comes. */
  const start = (argv: string[], options: { isTTY?: boolean } = {}) => {
    let out = '';
    let err = '';
    let interrupt!: (signal: string) => void;
    const interrupted = new Promise<string>((resolve) => (interrupt = resolve));
    const io = {
      stdout: { write: (s: string) => (out += s), isTTY: options.isTTY ?? false },
      stderr: { write: (s: string) => (err += s) },
      env: { PATCHBAY_HOME: home },
      cwd: dir,
      interrupted: () => interrupted,
    };
    const exited = main(argv, io);
    return { exited, stdout: () => out, stderr: () => err, interrupt: () => interrupt('SIGINT') };
  };
  return { hub, server, start };
}

const lines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('events --json prints the state, then every change as a timestamped JSON line, until interrupted', async (t) => {
  const { hub, start } = await withDaemon(t);
  const before = Date.now();
  const run = start(['events', '--json']);
  await waitFor(() => run.stdout().includes('\n'), { message: 'the first line' });
  const diff = { ...hub.state.diffs[1]!, id: 'd9', path: '/work/proj/b.txt' };
  const added: HubEvent = { type: 'diffAdded', diff };
  hub.emit(added);
  const changed = { ...sampleSnapshot(), paused: true };
  hub.emit({ type: 'snapshot', snapshot: changed });
  await waitFor(() => lines(run.stdout()).length === 3, { message: 'three lines' });
  run.interrupt();
  assert.equal(await run.exited, 0);
  assert.equal(run.stderr(), '');

  const [first, second, third] = lines(run.stdout());
  assert.deepEqual({ ...first, at: 0 }, { at: 0, type: 'snapshot', snapshot: hub.state });
  assert.deepEqual({ ...second, at: 0 }, { at: 0, ...added });
  assert.deepEqual({ ...third, at: 0 }, { at: 0, type: 'snapshot', snapshot: changed });
  for (const line of [first, second, third]) {
    assert.ok(typeof line!.at === 'number' && line!.at >= before && line!.at <= Date.now(), `"at" is when it arrived: ${line!.at}`);
  }
});

test('events without --json says what happened, with content: prompts, answers, where a diff was decided and what was written', async (t) => {
  const { hub, start } = await withDaemon(t);
  hub.state.hosted = [{ id: 'pi-1a2b', cwd: '/work/proj-a', pid: 1, status: 'streaming', model: null, thinkingLevel: null, startedAt: 0, exit: null, sessionId: 's1', review: 'reviewed', pendingDialogs: 0, sessionFile: null, sessionName: null, resumable: false, title: null }];
  const run = start(['events']);
  await waitFor(() => run.stdout().includes('\n'), { message: 'the first line' });
  hub.emit({ type: 'diffAdded', diff: hub.state.diffs[1]! });
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) }); // the same summary: no line
  hub.emit({
    type: 'diffDecided',
    record: { id: 'd2', sessionId: 's1', path: '/work/proj/new.txt', outcome: 'accepted', status: 'accepted', by: 'editor', at: 1, edited: false, changes: { total: 3, accepted: [1, 3], rejected: [2] }, reason: 'keep the loop', tool: 'write', editorId: 'nvim-proj', agent: 'pi-ide' },
  });
  hub.emit({ type: 'pi', id: 'pi-1a2b', event: { type: 'agent_start' } });
  hub.emit({ type: 'pi', id: 'pi-1a2b', event: { type: 'message_end', message: { role: 'user', content: [{ type: 'text', text: 'hello' }] } } });
  hub.emit({ type: 'pi', id: 'pi-1a2b', event: { type: 'message_update', assistantMessageEvent: { type: 'text_delta', delta: 'Ech' } } });
  hub.emit({ type: 'pi', id: 'pi-1a2b', event: { type: 'message_end', message: { role: 'assistant', content: [{ type: 'text', text: 'Echo: hello' }] } } });
  hub.emit({ type: 'pi', id: 'pi-1a2b', event: { type: 'tool_execution_start', toolName: 'write', args: { path: 'hello.txt' } } });
  hub.emit({ type: 'pi', id: 'pi-1a2b', event: { type: 'agent_end' } });
  await waitFor(() => run.stdout().includes(': done'), { message: 'the last line' });
  run.interrupt();
  assert.equal(await run.exited, 0);
  const shown = run.stdout().replace(/^\d\d:\d\d:\d\d\.\d{3} /gm, '');
  assert.equal(
    shown,
    [
      'door 127.0.0.1:40123, 1 editor (1 alive), 1 session, 2 pending diffs',
      'd2 proposed: write /work/proj/new.txt (session s1, review in patchbay)',
      "d2 accepted in nvim-proj (2 of 3 changes): /work/proj/new.txt; reason: 'keep the loop'",
      "pi pi-1a2b (proj-a): prompt 'hello'",
      "pi pi-1a2b (proj-a): → 'Echo: hello'",
      'pi pi-1a2b (proj-a): tool write hello.txt',
      'pi pi-1a2b (proj-a): done',
      '',
    ].join('\n'),
  );
});

test('events --diffs keeps only diffs; --session only what concerns that session, its hosted pi included', async (t) => {
  const { hub, start } = await withDaemon(t);
  hub.state.hosted = [{ id: 'pi-1a2b', cwd: '/work/proj-a', pid: 1, status: 'idle', model: null, thinkingLevel: null, startedAt: 0, exit: null, sessionId: 's1', review: 'reviewed', pendingDialogs: 0, sessionFile: null, sessionName: null, resumable: false, title: null }];
  const diffs = start(['events', '--diffs']);
  const session = start(['events', '--session', 's2', '--json']);
  await waitFor(() => diffs.stdout().includes('\n') && session.stdout().includes('\n'), { message: 'the first lines' });
  hub.emit({ type: 'snapshot', snapshot: { ...structuredClone(hub.state), paused: true } });
  hub.emit({ type: 'pi', id: 'pi-1a2b', event: { type: 'agent_end' } });
  hub.emit({ type: 'diffAdded', diff: { ...hub.state.diffs[1]!, id: 'd8', sessionId: 's2' } });
  hub.emit({ type: 'diffAdded', diff: { ...hub.state.diffs[1]!, id: 'd9', sessionId: 's1' } });
  await waitFor(() => diffs.stdout().includes('d9') && session.stdout().includes('d8'), { message: 'the diffs' });
  diffs.interrupt();
  session.interrupt();
  await Promise.all([diffs.exited, session.exited]);
  const shown = diffs.stdout().replace(/^\d\d:\d\d:\d\d\.\d{3} /gm, '').split('\n');
  assert.equal(shown.length, 4, 'the first state, two diffs');
  assert.match(shown[1]!, /^d8 proposed/);
  assert.match(shown[2]!, /^d9 proposed/);
  const json = lines(session.stdout());
  assert.deepEqual(json.map((l) => l.type), ['snapshot', 'diffAdded']);
  assert.equal((json[1]!.diff as { id: string }).id, 'd8');
});

test('a subscriber exits 1 and says why when Patchbay stops', async (t) => {
  const { server, start } = await withDaemon(t);
  const run = start(['events', '--json']);
  await waitFor(() => run.stdout().includes('\n'), { message: 'the first line' });
  await server.close();
  assert.equal(await run.exited, 1);
  assert.equal(run.stderr(), 'patchbay: the connection to Patchbay closed (Patchbay is stopping)\n');
});

test('status --watch --json prints a line per changed snapshot and skips those that did not change', async (t) => {
  const { hub, start } = await withDaemon(t);
  const run = start(['status', '--watch', '--json']);
  await waitFor(() => run.stdout().includes('\n'), { message: 'the first line' });
  hub.emit({ type: 'snapshot', snapshot: sampleSnapshot() }); // the same state again
  hub.emit({ type: 'diffAdded', diff: hub.state.diffs[0]! }); // not a snapshot
  const paused = { ...sampleSnapshot(), paused: true };
  hub.emit({ type: 'snapshot', snapshot: paused });
  await waitFor(() => lines(run.stdout()).length === 2, { message: 'the second line' });
  run.interrupt();
  assert.equal(await run.exited, 0);
  const printed = lines(run.stdout());
  assert.deepEqual(
    printed.map((l) => ({ ...l, at: 0 })),
    [
      { at: 0, type: 'snapshot', snapshot: hub.state },
      { at: 0, type: 'snapshot', snapshot: paused },
    ],
  );
});

test('status --watch reprints the status, replacing it on a terminal and after a time line in a pipe', async (t) => {
  const { hub, start } = await withDaemon(t);
  const piped = start(['status', '--watch']);
  const tty = start(['status', '--watch'], { isTTY: true });
  await waitFor(() => piped.stdout().includes('Pending diffs') && tty.stdout().includes('Pending diffs'), { message: 'the first status' });
  hub.emit({ type: 'snapshot', snapshot: { ...sampleSnapshot(), paused: true } });
  await waitFor(() => piped.stdout().includes('PAUSED') && tty.stdout().includes('PAUSED'), { message: 'the paused status' });
  piped.interrupt();
  tty.interrupt();
  assert.equal(await piped.exited, 0);
  assert.equal(await tty.exited, 0);
  assert.match(piped.stdout(), /^\d\d:\d\d:\d\d\.\d{3}\nPatchbay 0\.1\.0, pid 4242, core 4243\n[^]*\n\n\d\d:\d\d:\d\d\.\d{3}\nPatchbay 0\.1\.0, pid 4242, core 4243, routing PAUSED\n/);
  const screens = tty.stdout().split('\x1b[H\x1b[2J');
  assert.equal(screens.length, 3, 'each status starts with a cleared screen');
  assert.match(screens[2]!, /^Patchbay 0\.1\.0, pid 4242, core 4243, routing PAUSED\n/);
});
