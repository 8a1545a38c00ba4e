// Hosted pi sessions end to end: the real pi (npm, on Node 22) run by a real hub in `--mode rpc`
// against the fake OpenAI-compatible server, driven through HubApi and the `patchbay pi` CLI
// over the control server. One pi serves most tests (each start costs ~1 s on 2 cores); a
// second one is killed mid-turn.
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HubError, type HostedDetail, type HubEvent, type TranscriptItem } from '../../src/api/types.ts';
import { runCli } from '../cli/run-cli.ts';
import { pidAlive } from '../../src/discovery/liveness.ts';
import { createHub, type Hub } from '../../src/hub.ts';
import { startControlServer, type ControlServer } from '../../src/web/control-server.ts';
import type { FakeLlm } from '../peers/fake-llm.ts';
import { waitFor, type TempDir } from '../peers/wait.ts';
import { piBench, realPiVersions, type PiBench, type PiWorld } from './real-pi.ts';

/** pi answers within a second here; CI machines can be slower. */
const PI_MS = 20_000;

// Without the runtime a suite shows as skipped, naming the install command.
for (const { version, skip } of realPiVersions()) describe(`hosted pi sessions against the real pi ${version}`, { skip }, () => {
  let bench: PiBench;
  let root: TempDir;
  let llm: FakeLlm;
  let world: PiWorld;
  let hub: Hub;
  let server: ControlServer;
  let home: string;
  let work: string;
  let id: string;
  const events: { id: string; event: Record<string, unknown> }[] = [];

  const cli = (...argv: string[]) => runCli(argv, { home, cwd: root.path });
  const detail = (which = id): Promise<HostedDetail> => hub.call('pi.get', { id: which });
  const last = <K extends TranscriptItem['kind']>(d: HostedDetail, kind: K) =>
    d.transcript.filter((i): i is Extract<TranscriptItem, { kind: K }> => i.kind === kind).at(-1);
  const eventIndex = (): number => events.length;
  const waitEvent = (from: number, type: string, which = id) =>
    waitFor(() => events.slice(from).find((e) => e.id === which && e.event.type === type), {
      timeoutMs: PI_MS,
      message: () => `pi event ${type} (seen: ${events.slice(from).map((e) => e.event.type).join(', ')})`,
    });

  before(async () => {
    bench = await piBench('hosted-pi', version);
    ({ root, llm, world, home, work } = bench);
    const options = bench.hubOptions({ piIdeConnectMs: 300, piReviewWaitMs: PI_MS });
    hub = await createHub(options);
    hub.subscribe((e: HubEvent) => {
      if (e.type === 'pi') events.push({ id: e.id, event: e.event });
    });
    server = await startControlServer({ hub, host: '127.0.0.1', port: 0, home, staticDir: root.path, version: 'test', log: () => {} });
  });

  after(async () => {
    const pids = hub ? hub.call('snapshot', undefined).then((s) => s.hosted.map((h) => h.pid)) : Promise.resolve([]);
    const running = await pids.catch(() => []);
    await server?.close();
    await hub?.close();
    for (const pid of running) if (pid !== null) assert.equal(pidAlive(pid), false, `pi ${pid} outlived the hub`);
    await bench?.close();
  });

  test('patchbay pi start, then a prompt at once: it waits for pi-ide to reach the door, and its write waits for review', async () => {
    // The test's extension is loaded with -e: refused until the person allows extensions.
    const refused = await cli('pi', 'start', 'work', '--model', 'fake/fake-1', '--', '-e', world.extension);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^patchbay: pi\.start: "args" would load code into pi \(-e\)/);
    assert.deepEqual((await hub.call('snapshot', undefined)).hosted, []);
    assert.equal((await cli('settings', 'set', 'allowPiExtensions', 'true')).code, 0);

    const started = await cli('pi', 'start', 'work', '--model', 'fake/fake-1', '--', '-e', world.extension);
    // A slow start (a loaded machine) says what it waits for; nothing else goes to stderr.
    for (const line of started.stderr.split('\n').filter((l) => l !== '')) assert.match(line, /^\[(starting pi|pi is starting|pi answered|pi is up)/);
    assert.equal(started.code, 0);
    assert.match(started.stdout, /^pi-[0-9a-f]{8}\n$/);
    id = started.stdout.trim();
    // At once, as a person or a script would: pi-ide in this pi has not reached the door yet.
    llm.enqueue({ toolCall: { name: 'write', arguments: { path: 'notes.txt', content: 'from pi\n' } } }, { text: 'Wrote notes.txt.' });
    const prompting = cli('pi', 'prompt', id, 'write notes.txt');

    const [view] = (await hub.call('snapshot', undefined)).hosted;
    assert.equal(view?.id, id);
    assert.equal(view?.status, 'idle');
    assert.equal(view?.model, 'fake/fake-1');
    assert.equal(view?.cwd, work);
    assert.ok(view?.pid && pidAlive(view.pid));
    // pi-ide in this pi finds the door: it covers the session's folder.
    const lockDir = join(root.path, 'pi-ide');
    const [lockName] = (await readdir(lockDir)).filter((n) => n.endsWith('.lock'));
    const lock = JSON.parse(await readFile(join(lockDir, lockName!), 'utf8')) as { workspaceFolders: string[] };
    assert.ok(lock.workspaceFolders.includes(work), `door folders ${lock.workspaceFolders.join(', ')}`);

    // Its (stand-in) pi-ide is not at the door, so Patchbay runs `/ide` and answers with the door; the prompt goes after.
    const diff = await waitFor(async () => (await hub.call('snapshot', undefined)).diffs[0], { timeoutMs: PI_MS, message: 'the write in the inbox' });
    assert.equal(diff.path, join(work, 'notes.txt'));
    assert.equal(diff.tool, 'write');
    await assert.rejects(readFile(join(work, 'notes.txt')), /ENOENT/, 'nothing is written before the review');
    const linked = (await hub.call('snapshot', undefined)).hosted[0]!;
    assert.equal(linked.review, 'reviewed');
    assert.equal(linked.sessionId, diff.sessionId);
    await hub.call('diffs.accept', { id: diff.id, contents: 'from pi, reviewed\n' });

    const { code, stdout, stderr } = await prompting;
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'Wrote notes.txt.\n');
    assert.deepEqual(stderr.split('\n'), [
      '[connecting to review…]',
      `[pi asked: Connect to IDE; Patchbay answered: Patchbay · ${work} · pid=${process.pid} port=${hub.doorPort}]`,
      '[write {"path":"notes.txt","content":"from pi\\n"}]',
      `[pi waits for diff ${diff.id}: write ${join(work, 'notes.txt')} — patchbay diffs show ${diff.id}, then patchbay diffs accept ${diff.id} or reject ${diff.id}]`,
      `[diff ${diff.id} accepted by patchbay]`,
      '',
    ]);
    assert.equal(await readFile(join(work, 'notes.txt'), 'utf8'), 'from pi, reviewed\n');
    const choice = `Patchbay · ${work} · pid=${process.pid} port=${hub.doorPort}`;
    assert.ok((await detail()).transcript.some((i) => i.kind === 'notice' && i.text === `connected to ${choice}`), '/ide answered with the door');
    const tool = last(await detail(), 'tool');
    assert.equal(tool?.name, 'write');
    assert.deepEqual(tool?.args, { path: 'notes.txt', content: 'from pi\n' });
    assert.match(tool?.output ?? '', /Successfully wrote/);
    assert.equal(tool?.done, true);
  });

  test('patchbay pi prompt streams the answer to stdout, U+2028 inside it intact', async () => {
    llm.enqueue({ text: 'Hello\u2028world, line one.\nLine two.', thinking: 'Let me think…' });
    const from = eventIndex();
    const { code, stdout, stderr } = await cli('pi', 'prompt', id, 'say', 'hello');
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.equal(stdout, 'Hello\u2028world, line one.\nLine two.\n');
    const deltas = events
      .slice(from)
      .map((e) => e.event.assistantMessageEvent as { type: string; delta?: string } | undefined)
      .filter((u) => u?.type === 'text_delta');
    assert.ok(deltas.length > 3, 'the text arrived in pieces');
    assert.equal(deltas.map((u) => u!.delta).join(''), 'Hello\u2028world, line one.\nLine two.');

    const d = await detail();
    assert.deepEqual(last(d, 'user')?.text, 'say hello');
    const answer = last(d, 'assistant');
    assert.equal(answer?.text, 'Hello\u2028world, line one.\nLine two.');
    assert.equal(answer?.thinking, 'Let me think…');
    assert.equal(answer?.done, true);
    assert.equal(d.status, 'idle');
    const request = llm.requests.at(-1)!;
    assert.equal(request.model, 'fake-1');
    assert.ok(JSON.stringify(request.messages).includes('say hello'));
  });

  test('abort stops a turn mid-stream; the session is idle again and says so', async () => {
    llm.enqueue({ text: 'I will go on and on', stall: true });
    const from = eventIndex();
    await hub.call('pi.prompt', { id, text: 'talk forever' });
    await waitEvent(from, 'message_update');
    assert.equal((await hub.call('snapshot', undefined)).hosted[0]?.status, 'streaming');
    await assert.rejects(hub.call('pi.prompt', { id, text: 'no behaviour given' }), (err: unknown) => err instanceof HubError && /streaming/i.test(err.message));
    await hub.call('pi.abort', { id });
    await waitEvent(from, 'agent_settled');
    const d = await detail();
    assert.equal(d.status, 'idle');
    assert.deepEqual(d.transcript.at(-1) && { ...d.transcript.at(-1)!, at: 0 }, { kind: 'notice', level: 'warning', text: 'Aborted', at: 0 });
  });

  test('models are listed; set_model switches, get_state and the thinking level follow', async () => {
    const listed = (await hub.call('pi.models', { id })) as { models: { provider: string; id: string }[] };
    assert.deepEqual(listed.models.map((m) => `${m.provider}/${m.id}`), ['fake/fake-1', 'fake/fake-2']);
    const view = await hub.call('pi.setModel', { id, provider: 'fake', modelId: 'fake-2' });
    assert.equal(view.model, 'fake/fake-2');
    const state = (await hub.call('pi.state', { id })) as { model: { id: string }; isStreaming: boolean };
    assert.equal(state.model.id, 'fake-2');
    assert.equal(state.isStreaming, false);
    const thinking = await hub.call('pi.setThinking', { id, level: 'high' });
    assert.equal(thinking.thinkingLevel, 'high');
    await assert.rejects(hub.call('pi.setModel', { id, provider: 'fake', modelId: 'nope' }), (err: unknown) => err instanceof HubError && err.code === 'invalid' && /nope/.test(err.message));

    const printed = await cli('pi', 'state', id, '--json');
    assert.equal(printed.code, 0);
    const json = JSON.parse(printed.stdout) as { model: { id: string }; thinkingLevel: string };
    assert.equal(json.model.id, 'fake-2');
    assert.equal(json.thinkingLevel, 'high');
    const human = await cli('pi', 'state', id);
    assert.match(human.stdout, /^Model +fake\/fake-2\nThinking +high\nStreaming +no\n/);
  });

  test('session stats count the tokens of the runs so far', async () => {
    const stats = (await hub.call('pi.stats', { id })) as { tokens: { total: number }; userMessages: number };
    assert.ok(stats.tokens.total >= 15 * 3, JSON.stringify(stats.tokens));
    assert.equal(stats.userMessages, 3);
    assert.deepEqual((await detail()).stats, stats);
  });

  test('an extension dialog waits for the person; a wrong answer is refused, the right one reaches the extension', async () => {
    const prompting = hub.call('pi.prompt', { id, text: '/ask' });
    const dialog = await waitFor(async () => (await detail()).dialogs[0], { timeoutMs: PI_MS, message: 'the /ask dialog' });
    assert.equal(dialog.method, 'select');
    assert.equal(dialog.title, 'Pick one');
    assert.deepEqual(dialog.options, ['alpha', 'beta']);
    assert.equal(dialog.expiresAt, null);
    assert.equal((await hub.call('snapshot', undefined)).hosted[0]?.pendingDialogs, 1);
    await assert.rejects(hub.call('pi.answer', { id, requestId: dialog.requestId, answer: { value: 'gamma' } }), /"gamma" is not one of the options/);
    await hub.call('pi.answer', { id, requestId: dialog.requestId, answer: { value: 'beta' } });
    await prompting;
    const d = await detail();
    assert.deepEqual(d.dialogs, []);
    assert.equal(last(d, 'notice')?.text, 'picked beta');
    assert.equal(d.statusLines['test-ext'], 'status beta');
    await assert.rejects(hub.call('pi.answer', { id, requestId: dialog.requestId, answer: { value: 'beta' } }), (err: unknown) => err instanceof HubError && err.code === 'not-found');
  });

  test('a dialog pi times out leaves the list at its deadline', async () => {
    const began = Date.now();
    const prompting = hub.call('pi.prompt', { id, text: '/timed' });
    const dialog = await waitFor(async () => (await detail()).dialogs[0], { timeoutMs: PI_MS, message: 'the /timed dialog' });
    assert.equal(dialog.method, 'confirm');
    assert.equal(dialog.message, 'This goes away by itself.');
    assert.ok(dialog.expiresAt !== null && dialog.expiresAt >= began + 300);
    await prompting;
    await waitFor(async () => (await detail()).dialogs.length === 0, { message: 'the dialog to expire' });
    assert.equal(last(await detail(), 'notice')?.text, 'confirmed false');
  });

  test("pi-ide's /ide dialog is answered by Patchbay with its door", async () => {
    await hub.call('pi.prompt', { id, text: '/ide' });
    const d = await detail();
    assert.deepEqual(d.dialogs, []);
    const notices = d.transcript.filter((i) => i.kind === 'notice').map((i) => i.text);
    const choice = `Patchbay · ${work} · pid=${process.pid} port=${hub.doorPort}`;
    assert.ok(notices.includes(`connected to ${choice}`), notices.join('\n'));
  });

  test(
    "a write a codemode script makes is reviewed like the model's own: tab pi-write:<call>/<n>, its card under the script's, kept across a resume",
    { skip: version === '0.87.1' ? 'pi 0.87.1 has no codemode: nested tool calls came with 0.99' : false },
    async () => {
      const scripted = await hub.call('pi.start', { cwd: work, args: ['--tools', '+codemode', '-e', world.extension] });
      const code = 'await tools.write({ path: "scripted.txt", content: "from a script\\n" }); return "wrote"';
      llm.enqueue({ toolCall: { name: 'codemode', arguments: { code } } }, { text: 'The script wrote it.' });
      const prompting = cli('pi', 'prompt', scripted.id, 'write it with a script');
      const diff = await waitFor(async () => (await hub.call('snapshot', undefined)).diffs.find((d) => d.path === join(work, 'scripted.txt')), {
        timeoutMs: PI_MS,
        message: 'the nested write in the inbox',
      });
      assert.equal(diff.tool, 'write');
      const cards = (await detail(scripted.id)).transcript.filter((i): i is Extract<TranscriptItem, { kind: 'tool' }> => i.kind === 'tool');
      const script = cards.find((c) => c.name === 'codemode');
      const nested = cards.find((c) => c.name === 'write');
      assert.ok(script && nested, cards.map((c) => c.name).join(', '));
      assert.equal(diff.tabName, `pi-write:${script.toolCallId}/1`, "pi-ide names the tab after the nested call's id");
      assert.equal(nested.toolCallId, `${script.toolCallId}/1`);
      assert.equal(nested.parentToolCallId, script.toolCallId);
      await waitFor(async () => (await detail(scripted.id)).transcript.some((i) => i.kind === 'tool' && i.name === 'write' && i.diffId === diff.id), {
        message: 'the nested card linked to its diff',
      });
      await hub.call('diffs.accept', { id: diff.id });
      const done = await prompting;
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stderr, new RegExp(`\\[pi waits for diff ${diff.id}: write `), 'the CLI knew the diff was this prompt\'s');
      assert.equal(await readFile(join(work, 'scripted.txt'), 'utf8'), 'from a script\n');

      // Resumed, its transcript comes from pi's own messages: the nested call from its script's result.
      await hub.call('pi.stop', { id: scripted.id, keep: true });
      await hub.call('pi.resume', { id: scripted.id });
      const again = (await detail(scripted.id)).transcript.find((i) => i.kind === 'tool' && i.name === 'write');
      assert.ok(again?.kind === 'tool');
      assert.equal(again.parentToolCallId, script.toolCallId);
      assert.equal(again.diffId, diff.id);
      assert.deepEqual(again.args, { path: 'scripted.txt', content: 'from a script\n' });
      await hub.call('pi.stop', { id: scripted.id });
    },
  );

  test('pi dying mid-turn: the prompt fails with the reason, the session shows it has exited', async () => {
    const second = await hub.call('pi.start', { cwd: work });
    assert.equal(second.status, 'idle');
    assert.equal(second.review, 'unreviewed', 'no pi-ide in this pi');
    llm.enqueue({ text: 'about to be cut off', stall: true });
    const from = eventIndex();
    const prompting = cli('pi', 'prompt', second.id, 'go');
    // Killed once text is streaming (the first message_update may carry no text yet).
    await waitFor(
      () =>
        events
          .slice(from)
          .find((e) => e.id === second.id && e.event.type === 'message_update' && (e.event.assistantMessageEvent as { type?: string } | undefined)?.type === 'text_delta'),
      { timeoutMs: PI_MS, message: 'a text delta from the second session' },
    );
    process.kill(second.pid!, 'SIGKILL');
    const { code, stdout, stderr } = await prompting;
    assert.equal(code, 1);
    // What streamed before the kill: the text's start, cut wherever the kill landed ("abou").
    const streamed = stdout.trim();
    assert.ok(streamed.length > 0 && 'about to be cut off'.startsWith(streamed), `streamed ${JSON.stringify(stdout)}`);
    assert.match(
      stderr,
      new RegExp(`^\\[this pi has no pi-ide: its edits are written without review\\]\npatchbay pi: pi session ${second.id} exited: pi was killed by SIGKILL`),
    );
    const view = (await hub.call('snapshot', undefined)).hosted.find((h) => h.id === second.id);
    assert.equal(view?.status, 'exited');
    assert.match(view?.exit ?? '', /^pi was killed by SIGKILL/);
    assert.equal(last(await detail(second.id), 'notice')?.level, 'error');
    await assert.rejects(hub.call('pi.prompt', { id: second.id, text: 'hello?' }), (err: unknown) => err instanceof HubError && err.code === 'unavailable' && /has exited/.test(err.message));
    await hub.call('pi.stop', { id: second.id });
    assert.deepEqual((await hub.call('snapshot', undefined)).hosted.map((h) => h.id), [id]);
  });

  test('patchbay pi list, sessions, stop and resume: the process ends, the session file stays and opens again', async () => {
    const listed = await cli('pi', 'list');
    assert.match(listed.stdout, new RegExp(`^ID +STATUS +REVIEW +MODEL +PID +FOLDER +NAME\n${id} +idle +reviewed \\(s\\d+\\) +fake/fake-2 +\\d+ +${work} +-\n$`));
    const { pid, sessionFile } = (await hub.call('snapshot', undefined)).hosted[0]!;
    const sessions = await cli('pi', 'sessions');
    assert.equal(sessions.code, 0);
    assert.match(sessions.stdout, new RegExp(`“write notes.txt” +${id} +${sessionFile}\n`), sessions.stdout);
    const stopped = await cli('pi', 'stop', id);
    assert.equal(stopped.code, 0);
    assert.equal(stopped.stdout, `Stopped pi session ${id}.\n`);
    assert.equal(pidAlive(pid!), false);
    assert.deepEqual((await hub.call('snapshot', undefined)).hosted, []);
    const gone = await cli('pi', 'state', id);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no hosted pi session/);

    const resumed = await cli('pi', 'resume', sessionFile!);
    assert.equal(resumed.code, 0, resumed.stderr);
    const again = resumed.stdout.trim();
    const prompts = (await detail(again)).transcript.flatMap((i) => (i.kind === 'user' ? [i.text] : []));
    assert.deepEqual(prompts.slice(0, 3), ['write notes.txt', 'say hello', 'talk forever'], 'its conversation is back');
    assert.equal((await cli('pi', 'stop', again)).code, 0);
  });
});
