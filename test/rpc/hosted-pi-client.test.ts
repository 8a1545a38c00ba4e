// Hosted pi as a whole pi client, against the real pi (1.6.0 and 0.87.1, on Node 22, against the fake
// OpenAI-compatible server) run by a real hub: a session from pi's own terminal found and
// opened with its history; pi's terminal commands carried out as RPC commands, none reaching
// the model as text; images, the queue, fork, clone and new; and a restart of Patchbay that
// loses no session.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HostedDetail, HubEvent, TranscriptItem } from '../../src/api/types.ts';
import { createHub, type Hub } from '../../src/hub.ts';
import type { FakeLlm } from '../peers/fake-llm.ts';
import { waitFor, type TempDir } from '../peers/wait.ts';
import { piBench, realPiVersions, runPiInTerminal, type PiBench, type PiWorld } from './real-pi.ts';

const PI_MS = 20_000;
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

for (const { version, skip } of realPiVersions()) describe(`hosted pi as a whole pi client, against the real pi ${version}`, { skip }, () => {
  let bench: PiBench;
  let root: TempDir;
  let llm: FakeLlm;
  let world: PiWorld;
  let hub: Hub;
  let work: string;
  let id: string;
  const events: { id: string; event: Record<string, unknown> }[] = [];

  const openHub = async (): Promise<Hub> => {
    const opened = await createHub(bench.hubOptions({ piIdeConnectMs: null }));
    opened.subscribe((e: HubEvent) => {
      if (e.type === 'pi') events.push({ id: e.id, event: e.event });
    });
    return opened;
  };
  const detail = (which = id): Promise<HostedDetail> => hub.call('pi.get', { id: which });
  const lines = (items: TranscriptItem[]) => items.map((i) => ('text' in i ? `${i.kind}: ${i.text}` : i.kind === 'bash' ? `bash: ${i.command}` : i.kind));
  /** Waits until pi has settled after what `send` started. */
  const settled = async (send: () => Promise<unknown>, which = id) => {
    const from = events.length;
    const result = await send();
    await waitFor(() => events.slice(from).some((e) => e.id === which && e.event.type === 'agent_settled'), { timeoutMs: PI_MS, message: 'pi settled' });
    return result;
  };
  const userTexts = () =>
    llm.requests.flatMap((r) => r.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))));

  before(async () => {
    bench = await piBench('hosted-pi-client', version);
    ({ root, llm, world, work } = bench);
    // Compaction keeps little, so a few short turns are enough to compact.
    const settingsFile = join(world.agentDir, 'settings.json');
    const settings = JSON.parse(await readFile(settingsFile, 'utf8')) as Record<string, unknown>;
    await writeFile(settingsFile, JSON.stringify({ ...settings, compaction: { keepRecentTokens: 20 } }));
    hub = await openHub();
  });

  after(async () => {
    await hub?.close();
    await bench?.close();
  });

  test("a session started in pi's terminal is listed, and opens in its folder with its history", async () => {
    const tui = join(root.path, 'tui');
    await mkdir(tui);
    assert.equal(await runPiInTerminal(world, tui, 'from the terminal', version), 'You said: from the terminal\n');
    const [saved] = (await hub.call('pi.sessions', {})).filter((s) => s.cwd === tui);
    assert.ok(saved, 'listed');
    assert.equal(saved.firstPrompt, 'from the terminal');
    assert.equal(saved.hostedId, null);
    assert.equal(saved.messages, 3, "pi's system message, the prompt and the reply");
    assert.ok(saved.file.startsWith(join(world.agentDir, 'sessions')), saved.file);

    const opened = await hub.call('pi.resume', { sessionFile: saved.file });
    assert.equal(opened.cwd, tui);
    assert.equal(opened.status, 'idle');
    assert.equal(opened.sessionFile, saved.file);
    assert.deepEqual(lines((await detail(opened.id)).transcript), [`notice: Resumed ${saved.file}`, 'user: from the terminal', 'assistant: You said: from the terminal']);
    assert.equal((await hub.call('pi.resume', { sessionFile: saved.file })).id, opened.id, 'one pi per session file');
    assert.equal((await hub.call('pi.sessions', {})).find((s) => s.file === saved.file)?.hostedId, opened.id);
    await hub.call('pi.stop', { id: opened.id, keep: true });
  });

  test("pi's terminal commands run as its RPC commands; none reaches the model as text", async () => {
    ({ id } = await hub.call('pi.start', { cwd: work }));
    await settled(() => hub.call('pi.prompt', { id, text: 'first: set up the parser' }));
    await settled(() => hub.call('pi.prompt', { id, text: 'second: add the tests' }));
    const seen = userTexts().length;

    assert.deepEqual(await hub.call('pi.prompt', { id, text: '/name Parser work' }), { ran: 'name', name: 'Parser work' });
    await waitFor(async () => (await hub.call('snapshot', undefined)).hosted.find((h) => h.id === id)?.sessionName === 'Parser work', { message: 'the name in the list' });
    const compacted = await hub.call('pi.prompt', { id, text: '/compact keep the parser decisions' });
    assert.equal(compacted.ran, 'compact');
    assert.equal(typeof (compacted as { result: { summary?: unknown } }).result.summary, 'string');
    assert.match(JSON.stringify(llm.requests.at(-1)!.messages.at(-1)), /# Conversation\\n\[User\]: first: set up the parser/, 'pi asked the model for a summary');
    assert.match(lines((await detail()).transcript).join('\n'), /notice: Compacted the conversation: \d+ → \d+ tokens/);

    const shell = await hub.call('pi.prompt', { id, text: '!echo from the shell' });
    assert.deepEqual(shell, { ran: 'bash', result: { output: 'from the shell\n', exitCode: 0, cancelled: false, truncated: false } });
    const exported = await hub.call('pi.prompt', { id, text: '/export' });
    assert.equal(exported.ran, 'export');
    const path = (exported as { path: string }).path;
    assert.ok(isAbsolute(path) && path.startsWith(work), path);
    assert.match(await readFile(path, 'utf8'), /<html/i);
    await assert.rejects(hub.call('pi.prompt', { id, text: '/settings' }), /a command of pi's terminal UI/);

    const fileBefore = (await detail()).sessionFile;
    const points = await hub.call('pi.forkPoints', { id });
    assert.deepEqual(points.map((p) => p.text), ['first: set up the parser', 'second: add the tests']);
    const forked = await hub.call('pi.prompt', { id, text: '/fork second' });
    assert.deepEqual(forked, { ran: 'fork', text: 'second: add the tests', cancelled: false });
    const afterFork = await detail();
    assert.notEqual(afterFork.sessionFile, fileBefore);
    assert.deepEqual(lines(afterFork.transcript).filter((l) => l.startsWith('user')), ['user: first: set up the parser']);
    assert.deepEqual(await hub.call('pi.clone', { id }), { cancelled: false });
    assert.deepEqual(await hub.call('pi.prompt', { id, text: '/new' }), { ran: 'new', cancelled: false });
    assert.deepEqual(lines((await detail()).transcript), ['notice: Started a new session']);

    // Not one of them was a prompt: the model saw only the two real ones (and the summary request).
    const sent = userTexts().slice(seen);
    for (const text of ['/name', '/compact', '!echo', '/export', '/fork', '/clone', '/new', '/settings']) {
      assert.ok(!sent.some((t) => t.includes(text)), `${text} reached the model: ${sent.join(' | ')}`);
    }
    assert.deepEqual(
      (await hub.call('pi.commands', { id })).map((c) => c.name),
      version === '0.87.1' ? ['llama'] : ['llama', 'mcp'],
      "pi's own commands (its built-in llama.cpp extension; since 0.99 its MCP one too)",
    );
  });

  test('images go with a prompt to a model that sees them; prompts sent while pi works wait in its queue', async () => {
    await hub.call('pi.setModel', { id, provider: 'fake', modelId: 'fake-2' });
    assert.deepEqual(await hub.call('pi.thinkingLevels', { id }), ['off', 'minimal', 'low', 'medium', 'high']);
    await settled(() => hub.call('pi.prompt', { id, text: 'what is in this picture', images: [{ data: PNG_1PX, mimeType: 'image/png' }] }));
    const asked = llm.requests.at(-1)!.messages.at(-1)!;
    assert.ok(JSON.stringify(asked.content).includes(`data:image/png;base64,${PNG_1PX}`), JSON.stringify(asked.content).slice(0, 300));
    const user = (await detail()).transcript.find((i) => i.kind === 'user');
    assert.deepEqual(user && { ...user, at: 0 }, { kind: 'user', text: 'what is in this picture', images: 1, at: 0 });

    llm.enqueue({ text: 'working on it', stall: true });
    await hub.call('pi.prompt', { id, text: 'a long one' });
    await llm.stalled();
    await hub.call('pi.prompt', { id, text: 'then the docs', streamingBehavior: 'followUp' });
    await hub.call('pi.prompt', { id, text: 'use tabs', streamingBehavior: 'steer' });
    await waitFor(async () => (await detail()).queue.followUp.length === 1, { message: 'the queue in the detail' });
    assert.deepEqual((await detail()).queue, { steering: ['use tabs'], followUp: ['then the docs'] });
    assert.deepEqual(await hub.call('pi.clearQueue', { id }), { steering: ['use tabs'], followUp: ['then the docs'] });
    await waitFor(async () => (await detail()).queue.steering.length === 0, { message: 'the queue emptied' });
    await settled(() => hub.call('pi.abort', { id }));
    await hub.call('pi.setQueueModes', { id, steering: 'all' });
    await hub.call('pi.setAutoCompaction', { id, enabled: false });
    assert.deepEqual((await detail()).settings, { steeringMode: 'all', followUpMode: 'one-at-a-time', autoCompaction: false, autoRetry: null });
    await settled(() => hub.call('pi.prompt', { id, text: 'the last word before the restart' }));
  });

  test('a restart of Patchbay loses no session: listed stopped, resumed with the same id, its transcript from pi', async () => {
    const file = (await detail()).sessionFile!;
    await hub.close();
    hub = await openHub();
    const listed = (await hub.call('snapshot', undefined)).hosted;
    const mine = listed.find((h) => h.id === id);
    assert.equal(mine?.status, 'exited');
    assert.equal(mine?.resumable, true);
    assert.equal(mine?.sessionFile, file);
    assert.equal(listed.length, 2, 'the one opened from the terminal too');

    const resumed = await hub.call('pi.resume', { id });
    assert.equal(resumed.id, id);
    assert.equal(resumed.status, 'idle');
    assert.equal(resumed.model, 'fake/fake-2');
    const transcript = lines((await detail()).transcript);
    assert.deepEqual(transcript.filter((l) => l.startsWith('user')), ['user: what is in this picture', 'user: a long one', 'user: the last word before the restart']);
    await settled(() => hub.call('pi.prompt', { id, text: 'and on we go' }));
    assert.equal(lines((await detail()).transcript).at(-1), 'assistant: You said: and on we go');
  });
});
