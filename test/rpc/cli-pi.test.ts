// `patchbay pi …` against the in-memory hub behind a real control server: arguments, output
// and exit codes, without starting pi (the real pi is in hosted-pi.test.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { HubError, type PromptOutcome } from '../../src/api/types.ts';
import { NOW } from '../web/fake-hub.ts';
import { runCli } from '../cli/run-cli.ts';
import { startFakeDaemon } from '../cli/fake-daemon.ts';
import { withTimeout, WAIT_MS } from '../peers/wait.ts';

async function withDaemon(t: TestContext) {
  const { dir, home, hub } = await startFakeDaemon(t, 'cli-pi');
  let stdin = '';
  const run = (...argv: string[]) => runCli(argv, { home, cwd: dir, stdin });
  return { hub, run, dir, setStdin: (text: string) => void (stdin = text) };
}

test('pi start resolves the folder, passes the model and everything after -- to pi, and prints the id', async (t) => {
  const { hub, run, dir } = await withDaemon(t);
  const { code, stdout, stderr } = await run('pi', 'start', 'proj', '--model', 'fake/one', '--', '-e', './ext.ts', '--model', 'not/ours');
  assert.equal(stderr, '');
  assert.equal(code, 0);
  assert.equal(stdout, 'h1\n');
  assert.deepEqual(hub.calls.at(-1), {
    method: 'pi.start',
    params: { cwd: join(dir, 'proj'), model: 'fake/one', args: ['-e', './ext.ts', '--model', 'not/ours'] },
  });
  const json = await run('pi', 'start', '/abs/dir', '--json');
  assert.equal(JSON.parse(json.stdout).cwd, '/abs/dir');
  assert.deepEqual(hub.calls.at(-1)?.params, { cwd: '/abs/dir' }, 'no model, no args: none sent');
});

test('pi start that takes a while says on stderr what it waits for, stage by stage; a quick one prints only the id', async (t) => {
  const { hub, run, dir } = await withDaemon(t);
  const cwd = join(dir, 'slow');
  hub.handlers['pi.start'] = async () => {
    const stage = (name: string, ms: number, more: Record<string, unknown> = {}) =>
      hub.emit({ type: 'pi', id: 'h7', event: { type: 'hosted_start', stage: name, cwd, ms, ...more } });
    stage('door', 0);
    stage('spawned', 2, { pid: 4321 });
    // Another start elsewhere says nothing here.
    hub.emit({ type: 'pi', id: 'h8', event: { type: 'hosted_start', stage: 'ready', cwd: '/elsewhere', ms: 5 } });
    await new Promise((resolve) => setTimeout(resolve, 1300));
    stage('ready', 1300);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { ...hub.state.hosted[0]!, id: 'h7', cwd, review: 'connecting' };
  };
  const slow = await run('pi', 'start', 'slow');
  assert.equal(slow.code, 0);
  assert.equal(slow.stdout, 'h7\n');
  const lines = slow.stderr.trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 2), [
    '[pi is starting (pid 4321): waiting for it to answer (it loads its settings and extensions)…]',
    '[pi answered after 1.3 s; reading the commands it offers…]',
  ]);
  assert.match(lines[2] ?? '', /^\[pi is up after 1\.\d s\]$/);
  assert.equal(lines.length, 3);

  hub.handlers['pi.start'] = () => ({ ...hub.state.hosted[0]!, id: 'h9' });
  const quick = await run('pi', 'start', 'quick');
  assert.deepEqual([quick.stdout, quick.stderr], ['h9\n', '']);
});

test('pi prompt joins its words, streams the text and ends when pi settles', async (t) => {
  const { hub, run } = await withDaemon(t);
  await run('pi', 'start', '/p');
  const { code, stdout, stderr } = await run('pi', 'prompt', 'h1', 'hello', 'there', '--steer');
  assert.equal(stderr, '');
  assert.equal(code, 0);
  assert.equal(stdout, 'ok\n');
  assert.deepEqual(hub.calls.find((c) => c.method === 'pi.prompt')?.params, { id: 'h1', text: 'hello there', streamingBehavior: 'steer' });
});

test('pi prompt of an extension command that runs no agent returns once pi answered', async (t) => {
  const { hub, run } = await withDaemon(t);
  await run('pi', 'start', '/p');
  // pi 0.87 does not say: its state does.
  hub.handlers['pi.prompt'] = () => ({ ran: 'prompt' });
  const { code, stdout } = await run('pi', 'prompt', 'h1', '/ask');
  assert.equal(code, 0);
  assert.equal(stdout, '');
  assert.ok(hub.calls.some((c) => c.method === 'pi.state'), 'it asked whether a run was going');
  // pi 1.6 says `handled`: nothing to ask, no agent_settled to wait for.
  hub.calls.length = 0;
  hub.handlers['pi.prompt'] = () => ({ ran: 'prompt', disposition: 'handled' });
  const handled = await run('pi', 'prompt', 'h1', '/ask');
  assert.equal(handled.code, 0);
  assert.ok(!hub.calls.some((c) => c.method === 'pi.state'), 'its answer was enough');
});

test('pi prompt that pi started or queued waits for the run to settle, without asking its state', async (t) => {
  const { hub, run } = await withDaemon(t);
  await run('pi', 'start', '/p');
  for (const disposition of ['started', 'queued'] as const) {
    hub.calls.length = 0;
    hub.handlers['pi.prompt'] = ({ id }) => {
      // The run's records come a while after the answer: a state read in between would say "idle".
      setTimeout(() => {
        hub.emit({ type: 'pi', id, event: { type: 'message_update', assistantMessageEvent: { type: 'text_delta', delta: `${disposition} late` } } });
        hub.emit({ type: 'pi', id, event: { type: 'agent_settled' } });
      }, 150);
      return { ran: 'prompt', disposition };
    };
    hub.handlers['pi.state'] = () => ({ isStreaming: false });
    const { code, stdout } = await run('pi', 'prompt', 'h1', 'go', ...(disposition === 'queued' ? ['--follow-up'] : []));
    assert.equal(code, 0);
    assert.equal(stdout, `${disposition} late\n`, `${disposition}: the reply that came after the answer`);
    assert.ok(!hub.calls.some((c) => c.method === 'pi.state'));
  }
});

test('pi prompt fails with exit 1 when the turn fails or pi exits mid-turn', async (t) => {
  const { hub, run } = await withDaemon(t);
  await run('pi', 'start', '/p');
  const script = (events: Record<string, unknown>[]) => {
    hub.handlers['pi.prompt'] = ({ id }) => {
      queueMicrotask(() => {
        for (const event of events) hub.emit({ type: 'pi', id, event });
      });
      return { ran: 'prompt' };
    };
  };
  script([
    { type: 'agent_start' },
    { type: 'message_update', assistantMessageEvent: { type: 'text_delta', delta: 'partial' } },
    { type: 'message_end', message: { role: 'assistant', stopReason: 'error', errorMessage: '401 invalid key' } },
    { type: 'agent_settled' },
  ]);
  const failed = await run('pi', 'prompt', 'h1', 'go');
  assert.equal(failed.code, 1);
  assert.equal(failed.stdout, 'partial\n');
  assert.equal(failed.stderr, 'patchbay pi: 401 invalid key\n');

  script([{ type: 'agent_start' }, { type: 'hosted_exit', code: 1, signal: null, message: 'pi exited with code 1' }]);
  const exited = await run('pi', 'prompt', 'h1', 'go');
  assert.equal(exited.code, 1);
  assert.equal(exited.stderr, 'patchbay pi: pi session h1 exited: pi exited with code 1\n');
});

test('pi prompt says which dialogs wait for the person and which Patchbay answered itself', async (t) => {
  const { hub, run } = await withDaemon(t);
  await run('pi', 'start', '/p');
  hub.handlers['pi.prompt'] = ({ id }) => {
    queueMicrotask(() => {
      hub.emit({ type: 'pi', id, event: { type: 'agent_start' } });
      hub.emit({ type: 'pi', id, event: { type: 'extension_ui_request', id: 'u1', method: 'select', title: 'Connect to IDE', patchbayAnswer: 'Patchbay · /p · pid=1 port=2' } });
      hub.emit({ type: 'pi', id, event: { type: 'extension_ui_request', id: 'u2', method: 'confirm', title: 'Sure?' } });
      hub.emit({ type: 'pi', id, event: { type: 'extension_ui_request', id: 'u3', method: 'notify', message: 'hi' } });
      hub.emit({ type: 'pi', id, event: { type: 'agent_settled' } });
    });
    return { ran: 'prompt' };
  };
  const { code, stderr } = await run('pi', 'prompt', 'h1', '/ide');
  assert.equal(code, 0);
  assert.equal(stderr, "[pi asked: Connect to IDE; Patchbay answered: Patchbay · /p · pid=1 port=2]\n[pi asks: Sure? — answer it in Patchbay's window, or: patchbay pi answer h1 u2 …]\n");
});

test('pi prompt names the diff pi waits for and the commands that decide it', async (t) => {
  const { hub, run } = await withDaemon(t);
  await run('pi', 'start', '/p');
  const proposal = { ...hub.state.diffs[1]!, id: 'd7', sessionId: 's9', editorId: null, tool: 'write' as const, path: '/p/hello.txt', tabName: 'pi-write:call_1' };
  const elsewhere = { ...proposal, id: 'd8', path: '/q/other.txt', tabName: 'pi-write:call_other' };
  const inEditor = { ...proposal, id: 'd9', editorId: 'nvim-proj', tool: 'edit' as const, tabName: 'pi-edit:call_2' };
  hub.handlers['pi.prompt'] = ({ id }) => {
    queueMicrotask(() => {
      const pi = (event: Record<string, unknown>) => hub.emit({ type: 'pi', id, event });
      pi({ type: 'agent_start' });
      pi({ type: 'tool_execution_start', toolCallId: 'call_1', toolName: 'write', args: { path: 'hello.txt' } });
      hub.emit({ type: 'diffAdded', diff: elsewhere }); // another agent's: not this prompt's business
      hub.emit({ type: 'diffAdded', diff: proposal });
      hub.emit({ type: 'diffDecided', record: { id: 'd7', sessionId: 's9', path: '/p/hello.txt', outcome: 'accepted', status: 'accepted', by: 'patchbay', at: 1, edited: false, tool: 'write', editorId: null, agent: 'pi-ide' } });
      pi({ type: 'tool_execution_start', toolCallId: 'call_2', toolName: 'edit', args: { path: 'hello.txt' } });
      hub.emit({ type: 'diffAdded', diff: inEditor });
      // A diff named otherwise is still this pi's when it came through its door session.
      hub.emit({ type: 'snapshot', snapshot: { ...hub.state, hosted: hub.state.hosted.map((h) => ({ ...h, sessionId: 's9' })) } });
      hub.emit({ type: 'diffAdded', diff: { ...proposal, id: 'd10', tabName: 'review' } });
      pi({ type: 'agent_settled' });
    });
    return { ran: 'prompt' };
  };
  const { code, stderr } = await run('pi', 'prompt', 'h1', 'write hello');
  assert.equal(code, 0);
  assert.deepEqual(stderr.split('\n'), [
    '[write {"path":"hello.txt"}]',
    '[pi waits for diff d7: write /p/hello.txt — patchbay diffs show d7, then patchbay diffs accept d7 or reject d7]',
    '[diff d7 accepted by patchbay]',
    '[edit {"path":"hello.txt"}]',
    '[pi waits for diff d9 in nvim-proj: edit /p/hello.txt — or here: patchbay diffs show d9, then patchbay diffs accept d9 or reject d9]',
    '[pi waits for diff d10: write /p/hello.txt — patchbay diffs show d10, then patchbay diffs accept d10 or reject d10]',
    '',
  ]);
});

test('pi state, list and stop print for people; --json prints the values as they are', async (t) => {
  const { run } = await withDaemon(t);
  assert.equal((await run('pi', 'list')).stdout, 'No hosted pi sessions.\n');
  await run('pi', 'start', '/p');
  const list = await run('pi', 'list');
  assert.equal(list.stdout, 'ID  STATUS  REVIEW    MODEL       PID   FOLDER  NAME\nh1  idle    reviewed  fake/model  9000  /p      -\n');
  const state = await run('pi', 'state', 'h1');
  assert.match(state.stdout, /^Model +fake\/model\nThinking +off\nStreaming +no\n/);
  assert.deepEqual(JSON.parse((await run('pi', 'state', 'h1', '--json')).stdout), {
    model: { provider: 'fake', id: 'model' },
    thinkingLevel: 'off',
    isStreaming: false,
  });
  assert.equal((await run('pi', 'stop', 'h1')).stdout, 'Stopped pi session h1.\n');
  const gone = await run('pi', 'stop', 'h1');
  assert.equal(gone.code, 1);
  assert.equal(gone.stderr, 'patchbay: no hosted pi session "h1"\n');
});

test('a wrong pi command line exits 2 with the usage', async (t) => {
  const { run, hub } = await withDaemon(t);
  for (const argv of [['pi'], ['pi', 'launch'], ['pi', 'prompt', 'h1'], ['pi', 'start'], ['pi', 'prompt', 'h1', 'x', '--steer', '--follow-up']]) {
    const { code, stderr } = await run(...argv);
    assert.equal(code, 2, argv.join(' '));
    assert.match(stderr, /^patchbay pi: .+\nUsage:\n {2}patchbay pi start <dir>/, argv.join(' '));
  }
  hub.handlers['pi.abort'] = () => {
    throw new HubError('pi session h1 has exited: pi exited with code 0', 'unavailable');
  };
  const abort = await run('pi', 'abort', 'h1');
  assert.equal(abort.code, 1);
  assert.equal(abort.stderr, 'patchbay: pi session h1 has exited: pi exited with code 0\n');
});

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('a prompt too long for a command line comes from standard input (-) or a file; images go with it, typed by their bytes', async (t) => {
  const { hub, run, dir, setStdin } = await withDaemon(t);
  await run('pi', 'start', '/p');
  const document = `Review this:\n${'const x = "a\\tb"; // ünïcode\n'.repeat(8000)}`;
  assert.ok(document.length > 200_000);
  setStdin(document);
  assert.equal((await run('pi', 'prompt', 'h1', '-')).code, 0);
  assert.equal((hub.calls.filter((c) => c.method === 'pi.prompt').at(-1)?.params as { text: string }).text, document);

  await writeFile(join(dir, 'prompt.md'), 'from a file\n');
  await writeFile(join(dir, 'shot.png'), Buffer.from(PNG_1PX, 'base64'));
  const withImage = await run('pi', 'prompt', 'h1', '--file', 'prompt.md', '--image', 'shot.png', '--follow-up');
  assert.equal(withImage.code, 0, withImage.stderr);
  assert.deepEqual(hub.calls.filter((c) => c.method === 'pi.prompt').at(-1)?.params, {
    id: 'h1',
    text: 'from a file\n',
    streamingBehavior: 'followUp',
    images: [{ data: PNG_1PX, mimeType: 'image/png' }],
  });
  await writeFile(join(dir, 'notes.txt'), 'not an image');
  const notImage = await run('pi', 'prompt', 'h1', 'look', '--image', 'notes.txt');
  assert.equal(notImage.code, 1);
  assert.equal(notImage.stderr, 'patchbay: --image notes.txt: not a PNG, JPEG, GIF or WebP image\n');
  const both = await run('pi', 'prompt', 'h1', 'words', '--file', 'prompt.md');
  assert.equal(both.code, 2);
  assert.match(both.stderr, /not two of them/);
  // A prompt or an image is read only from a regular file, not through a symlink nor from a FIFO.
  if (process.platform !== 'win32') {
    const sent = hub.calls.length;
    await symlink(join(dir, 'shot.png'), join(dir, 'link.png'));
    execFileSync('mkfifo', [join(dir, 'fifo.md')]);
    const viaLink = await run('pi', 'prompt', 'h1', 'look', '--image', 'link.png');
    assert.equal(viaLink.stderr, 'patchbay: --image link.png is not read: it is a symlink (only a regular file is read, and not through a symlink: give the file itself)\n');
    const fromFifo = await withTimeout(run('pi', 'prompt', 'h1', '--file', 'fifo.md'), WAIT_MS, 'a --file that is a FIFO');
    assert.match(fromFifo.stderr, /^patchbay: --file fifo\.md is not read: it is a FIFO/);
    assert.equal(hub.calls.length, sent, 'nothing was sent');
  }
});

test("pi's TUI commands print what they did; a shell command streams its output and exits with its code", async (t) => {
  const { hub, run } = await withDaemon(t);
  await run('pi', 'start', '/p');
  const outcomes: Record<string, PromptOutcome> = {
    '/name Parser work': { ran: 'name', name: 'Parser work' },
    '/compact': { ran: 'compact', result: { summary: 's', tokensBefore: 1200, estimatedTokensAfter: 300 } },
    '/fork second': { ran: 'fork', text: 'second: add the tests', cancelled: false },
    '/export': { ran: 'export', path: '/p/pi-session.html' },
    '/new': { ran: 'new', cancelled: false },
  };
  hub.handlers['pi.prompt'] = ({ id, text }) => {
    if (text.startsWith('!')) {
      queueMicrotask(() => {
        hub.emit({ type: 'pi', id, event: { type: 'hosted_bash_start', requestId: 'pb-7', command: 'make' } });
        hub.emit({ type: 'pi', id, event: { type: 'bash_execution_update', id: 'pb-7', delta: 'building\n' } });
        hub.emit({ type: 'pi', id, event: { type: 'bash_execution_update', id: 'pb-other', delta: 'not ours\n' } });
      });
      return new Promise((resolve) => setTimeout(() => resolve({ ran: 'bash', result: { output: 'building\nfailed\n', exitCode: 2, cancelled: false, truncated: false } }), 50));
    }
    return outcomes[text]!;
  };
  assert.deepEqual(await run('pi', 'name', 'h1', 'Parser', 'work'), { code: 0, stdout: 'Named the session “Parser work”.\n', stderr: '' });
  assert.equal((await run('pi', 'prompt', 'h1', '/name', 'Parser', 'work')).stdout, 'Named the session “Parser work”.\n');
  assert.equal((await run('pi', 'compact', 'h1')).stdout, 'Compacted the conversation: 1200 → 300 tokens.\n');
  assert.equal((await run('pi', 'fork', 'h1', '--at', 'second')).stdout, 'Forked into a new session, from before this prompt (send it again, edited):\nsecond: add the tests\n');
  assert.equal((await run('pi', 'prompt', 'h1', '/export')).stdout, 'Exported the session to /p/pi-session.html\n');
  assert.equal((await run('pi', 'prompt', 'h1', '/new')).stdout, 'Started a new session.\n');
  const shell = await run('pi', 'bash', 'h1', 'make', '--exclude');
  assert.deepEqual(shell, { code: 2, stdout: 'building\n', stderr: '' }, 'what streamed; the exit code is the command’s');
  assert.equal((hub.calls.filter((c) => c.method === 'pi.prompt').at(-1)?.params as { text: string }).text, '!!make');
});

test('pi resume, sessions, fork, queue, thinking, answer and the switches, as a person at a terminal runs them', async (t) => {
  const { hub, run, dir } = await withDaemon(t);
  await run('pi', 'start', '/p');
  hub.savedSessions.push({
    file: '/home/u/.pi/agent/sessions/--p--/2026_a.jsonl',
    id: 'a',
    cwd: '/p',
    name: null,
    firstPrompt: 'Fix the flaky test in the parser module please',
    createdAt: NOW - 7_200_000,
    modifiedAt: NOW - 7_200_000,
    bytes: 20480,
    messages: 4,
    hostedId: null,
  });
  const sessions = await run('pi', 'sessions');
  assert.match(sessions.stdout, /^CHANGED +SIZE +FOLDER +NAME OR FIRST PROMPT +HOSTED +FILE\n\d+[smhd] ago +20 KiB +\/p +“Fix the flaky test in the parser module please” +- +\/home\/u\/\.pi\/agent\/sessions\/--p--\/2026_a\.jsonl\nResume one with: patchbay pi resume <file>\n$/);
  assert.equal((await run('pi', 'sessions', '--session-dir', 'mine')).code, 0);
  assert.deepEqual(hub.calls.at(-1)?.params, { sessionDir: join(dir, 'mine') });

  assert.equal((await run('pi', 'resume', '/home/u/.pi/agent/sessions/--p--/2026_a.jsonl')).stdout, 'h2\n');
  assert.deepEqual(hub.calls.at(-1)?.params, { sessionFile: '/home/u/.pi/agent/sessions/--p--/2026_a.jsonl' });
  await run('pi', 'stop', 'h1', '--keep');
  assert.equal((await run('pi', 'resume', 'h1')).stdout, 'h1\n');
  assert.deepEqual(hub.calls.at(-1)?.params, { id: 'h1' });

  hub.hosted.get('h1')!.transcript.push({ kind: 'user', text: 'first', at: NOW }, { kind: 'user', text: 'second', at: NOW });
  assert.equal((await run('pi', 'fork', 'h1')).stdout, '1. first\n2. second\nFork from one with: --at <the start of its text>\n');

  hub.hosted.get('h1')!.queue = { steering: ['use tabs'], followUp: ['then the docs'] };
  assert.equal((await run('pi', 'queue', 'h1')).stdout, 'steer      use tabs\nfollow-up  then the docs\n');
  assert.equal((await run('pi', 'queue', 'h1', '--clear', '--steering', 'all')).stdout, 'Took out of the queue:\nsteer      use tabs\nfollow-up  then the docs\n');
  assert.equal(hub.hosted.get('h1')!.settings.steeringMode, 'all');
  assert.equal((await run('pi', 'queue', 'h1', '--steering', 'some')).code, 2);

  assert.equal((await run('pi', 'thinking', 'h1')).stdout, '* off\n  minimal\n  low\n  medium\n  high\n');
  assert.equal((await run('pi', 'thinking', 'h1', 'high')).stdout, 'Thinking level: high\n');
  assert.equal((await run('pi', 'model', 'h1', 'fake/smart')).stdout, 'Model: fake/smart (thinking high)\n');
  assert.equal((await run('pi', 'auto-compaction', 'h1', 'off')).stdout, 'Auto-compaction is off.\n');
  assert.equal((await run('pi', 'auto-retry', 'h1', 'abort')).stdout, 'Stopped retrying.\n');
  assert.equal((await run('pi', 'auto-retry', 'h1', 'maybe')).code, 2);
  assert.equal((await run('pi', 'export', 'h1', '--out', 'session.html')).stdout, `${join(dir, 'session.html')}\n`);
  assert.equal((await run('pi', 'export', 'h1', '--out', 'session.txt')).code, 2);
  assert.match((await run('pi', 'commands', 'h1')).stdout, /^COMMAND +FROM +WHAT IT DOES\n\/compact \[instructions\] +patchbay +Compact the conversation.*\n(.*\n)*\/review +prompt +Review the changes\n$/);
  assert.equal((await run('pi', 'stats', 'h1')).stdout, 'No stats yet.\n');

  hub.hosted.get('h1')!.dialogs.push({ requestId: 'u1', method: 'confirm', title: 'Sure?', expiresAt: null });
  assert.equal((await run('pi', 'answer', 'h1', 'u1', '--yes')).code, 0);
  assert.deepEqual(hub.calls.at(-1)?.params, { id: 'h1', requestId: 'u1', answer: { confirmed: true } });
  assert.equal((await run('pi', 'answer', 'h1', 'u1', 'x', '--no')).code, 2);
});
