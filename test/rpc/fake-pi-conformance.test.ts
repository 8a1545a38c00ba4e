// The fake pi (test/peers/fake-pi-rpc.ts) against the real pi, 1.6.0 and 0.87.1 (the fake in the
// same version's mode): one script of pi's RPC commands runs on both, and every answer's shape,
// every error's words and the events each command causes must be the same. The fast tests trust
// the fake; this keeps it honest.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { PiCommandError, PiRpcClient } from '../../src/rpc/client.ts';
import type { RpcCommand, RpcEvent } from '../../src/rpc/protocol.ts';
import { startFakeLlm, type FakeLlm } from '../peers/fake-llm.ts';
import { TSX_LOADER } from '../peers/spawn.ts';
import { tempDir, waitFor, type TempDir } from '../peers/wait.ts';
import { piCommand, piWorld, realPiVersions } from './real-pi.ts';

const FAKE = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));
const PI_MS = 20_000;

type Shape = string | Shape[] | { [key: string]: Shape };

/** Keys and kinds of a value, not its contents: what a client may rely on. */
function shape(value: unknown): Shape {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shape((value as Record<string, unknown>)[k])]),
    );
  }
  return value === null ? 'null' : typeof value;
}

interface Pi {
  client: PiRpcClient;
  events: RpcEvent[];
  cwd: string;
  /** A prompt whose reply streams `text` and then keeps working until abort. */
  stallingPrompt(text: string): Promise<string>;
}

/** A command's answer: its data, or pi's error text. */
async function answer(pi: Pi, command: RpcCommand): Promise<{ data?: unknown; error?: string }> {
  try {
    return { data: await pi.client.request(command, { timeoutMs: PI_MS }) };
  } catch (err) {
    if (err instanceof PiCommandError) return { error: err.reason };
    throw err;
  }
}

/** The events `run` caused, by type (consecutive message_update deltas counted as one). */
async function eventsOf(pi: Pi, run: () => Promise<unknown>, until?: string): Promise<string[]> {
  const from = pi.events.length;
  await run();
  if (until !== undefined) await waitFor(() => pi.events.slice(from).some((e) => e.type === until), { timeoutMs: PI_MS, message: until });
  const types: string[] = [];
  for (const e of pi.events.slice(from)) {
    const role = (e.message as { role?: string } | undefined)?.role;
    const name = e.type === 'message_update' ? `message_update:${(e.assistantMessageEvent as { type: string }).type}` : role ? `${e.type}:${role}` : e.type;
    if (types.at(-1) !== name) types.push(name);
  }
  return types;
}

const roles = (data: unknown): string[] => ((data as { messages: { role: string }[] }).messages ?? []).map((m) => m.role);

/** Runs the whole script; each step's outcome is one entry, compared between the two pis. */
async function script(pi: Pi): Promise<{ seen: Record<string, unknown>; file: string }> {
  const seen: Record<string, unknown> = {};
  /** A step's outcome: pi's error, or what `keep` takes from its data (by default its shape). */
  const step = async (name: string, command: RpcCommand, keep: (data: unknown) => unknown = shape) => {
    const { data, error } = await answer(pi, command);
    seen[name] = error !== undefined ? { error } : keep(data);
  };
  await step('get_state', { type: 'get_state' });
  await step('get_commands', { type: 'get_commands' });
  await step('built-in commands', { type: 'get_commands' }, (data) => (data as { commands: { name: string; sourceInfo: { path: string } }[] }).commands.map((c) => `${c.name} ${c.sourceInfo.path}`));
  await step('get_available_models', { type: 'get_available_models' }, (data) => shape((data as { models: unknown[] }).models[0]));
  await step('set_model unknown', { type: 'set_model', provider: 'fake', modelId: 'nope' });
  await step('thinking levels', { type: 'get_available_thinking_levels' }, (data) => data);
  await step('name empty', { type: 'set_session_name', name: '' });
  seen['name events'] = await eventsOf(pi, () => answer(pi, { type: 'set_session_name', name: 'Foo' }));
  seen['compact tiny'] = await eventsOf(pi, async () => (seen['compact tiny error'] = (await answer(pi, { type: 'compact' })).error));
  seen['prompt events'] = await eventsOf(pi, async () => (seen['prompt answer'] = await answer(pi, { type: 'prompt', message: 'hi' })), 'agent_settled');
  await step('get_messages', { type: 'get_messages' }, roles);
  const first = (await answer(pi, { type: 'get_state' })).data as { sessionFile: string; sessionName?: string };
  seen['name kept'] = first.sessionName;
  await step('fork messages', { type: 'get_fork_messages' }, (data) => (data as { messages: { text: string }[] }).messages.map((m) => m.text));
  await step('last text', { type: 'get_last_assistant_text' }, shape);
  await step('stats', { type: 'get_session_stats' });
  seen['bash events'] = await eventsOf(pi, async () => (seen.bash = (await answer(pi, { type: 'bash', command: 'echo one; sleep 0.05; echo two >&2; exit 3' })).data));
  seen['bash update has id'] = pi.events.filter((e) => e.type === 'bash_execution_update').every((e) => typeof e.id === 'string');
  seen['queue events'] = await eventsOf(pi, async () => {
    seen['steer answer'] = await answer(pi, { type: 'steer', message: 'x' });
    seen['follow_up answer'] = await answer(pi, { type: 'follow_up', message: 'y' });
  });
  seen['queue last'] = pi.events.filter((e) => e.type === 'queue_update').at(-1);
  await step('clear_queue', { type: 'clear_queue' }, (data) => data);
  const forkId = ((await answer(pi, { type: 'get_fork_messages' })).data as { messages: { entryId: string }[] }).messages[0]!.entryId;
  await step('fork', { type: 'fork', entryId: forkId }, (data) => data);
  const forked = (await answer(pi, { type: 'get_state' })).data as { sessionFile: string };
  seen['fork moves to a new file'] = forked.sessionFile !== first.sessionFile;
  await step('fork messages after', { type: 'get_messages' }, roles);
  await step('fork bad', { type: 'fork', entryId: 'nope' });
  await step('switch back', { type: 'switch_session', sessionPath: first.sessionFile }, (data) => data);
  await step('switched messages', { type: 'get_messages' }, roles);
  await step('clone', { type: 'clone' }, (data) => data);
  await step('new_session', { type: 'new_session' }, (data) => data);
  await step('new messages', { type: 'get_messages' }, roles);
  await step('export relative', { type: 'export_html' }, (data) => isAbsolute((data as { path: string }).path));
  await step('export at', { type: 'export_html', outputPath: join(pi.cwd, 'out.html') }, (data) => data);
  await step('unknown', { type: 'nonsense' } as RpcCommand);
  await step('steering mode', { type: 'set_steering_mode', mode: 'all' }, (data) => data ?? 'no data');
  await step('follow-up mode', { type: 'set_follow_up_mode', mode: 'all' }, (data) => data ?? 'no data');
  await step('modes in state', { type: 'get_state' }, (data) => [(data as { steeringMode: string }).steeringMode, (data as { followUpMode: string }).followUpMode]);
  await step('auto-compaction off', { type: 'set_auto_compaction', enabled: false }, (data) => data ?? 'no data');
  await step('auto-compaction in state', { type: 'get_state' }, (data) => (data as { autoCompactionEnabled: boolean }).autoCompactionEnabled);
  await step('auto-retry', { type: 'set_auto_retry', enabled: false }, (data) => data ?? 'no data');
  await step('abort retry', { type: 'abort_retry' }, (data) => data ?? 'no data');
  await step('tree', { type: 'get_tree' }, (data) => [shape((data as { tree: unknown[] }).tree[0]), typeof (data as { leafId: unknown }).leafId]);
  // A shell command stopped part way: its output so far, no exit code.
  const shell = pi.client.request({ type: 'bash', command: 'echo started; sleep 5; echo never' }, { timeoutMs: PI_MS });
  await waitFor(() => pi.events.some((e) => e.type === 'bash_execution_update' && e.delta === 'started\n'), { timeoutMs: PI_MS, message: 'the command started' });
  await step('abort bash', { type: 'abort_bash' }, (data) => data ?? 'no data');
  seen['aborted bash'] = await shell;
  // A turn that keeps working: prompts need a streaming behaviour, which queues them; abort ends it.
  const from = pi.events.length;
  await answer(pi, { type: 'prompt', message: await pi.stallingPrompt('stalling…') });
  await waitFor(() => pi.events.slice(from).some((e) => e.type === 'message_update' && (e.assistantMessageEvent as { type: string }).type === 'text_delta'), { timeoutMs: PI_MS, message: 'the stalled reply' });
  await step('busy state', { type: 'get_state' }, (data) => (data as { isStreaming: boolean }).isStreaming);
  await step('prompt while busy', { type: 'prompt', message: 'no behaviour' });
  seen['queued while busy'] = await eventsOf(pi, async () => (seen['queued answer'] = await answer(pi, { type: 'prompt', message: 'later', streamingBehavior: 'followUp' })));
  seen['abort events'] = await eventsOf(pi, () => answer(pi, { type: 'abort' }));
  seen['aborted reply'] = (pi.events.filter((e) => e.type === 'message_end').at(-1)?.message as { stopReason?: string } | undefined)?.stopReason;
  await step('idle after abort', { type: 'get_state' }, (data) => (data as { isStreaming: boolean }).isStreaming);
  return { seen, file: first.sessionFile };
}

function open(command: string[], args: string[], cwd: string, env: NodeJS.ProcessEnv): Pi {
  const events: RpcEvent[] = [];
  const client = new PiRpcClient({
    command,
    args,
    cwd,
    env,
    onEvent: (e) => events.push(e),
    onUiRequest: () => {},
    onExit: () => {},
    log: () => {},
    commandTimeoutMs: PI_MS,
    stopGraceMs: 1000,
  });
  return { client, events, cwd, stallingPrompt: async (text) => `hold ${text}` };
}

for (const { version, skip } of realPiVersions()) describe(`the fake pi answers as pi ${version} does`, { skip }, () => {
  let root: TempDir;
  let llm: FakeLlm;
  const seen: Record<'real' | 'fake', Record<string, unknown>> = { real: {}, fake: {} };

  before(async () => {
    root = await tempDir('pi-conformance');
    llm = await startFakeLlm();
    const world = await piWorld(root.path, llm.baseUrl);
    const run = async (which: 'real' | 'fake', command: string[]) => {
      const cwd = join(root.path, which);
      await mkdir(cwd);
      const pi = open(command, ['--model', 'fake/fake-1'], cwd, world.env);
      if (which === 'real') {
        pi.stallingPrompt = async (text) => {
          llm.enqueue({ text, stall: true });
          return 'go on';
        };
      }
      let file: string;
      try {
        ({ seen: seen[which], file } = await script(pi));
      } finally {
        await pi.client.close();
      }
      // Started again on that session file, pi has its conversation and its name back.
      const again = open(command, ['--session', file], cwd, world.env);
      try {
        seen[which]['resumed messages'] = roles((await answer(again, { type: 'get_messages' })).data);
        const state = (await answer(again, { type: 'get_state' })).data as { sessionFile: string; sessionName?: string };
        seen[which]['resumed file and name'] = [state.sessionFile === file, state.sessionName];
      } finally {
        await again.client.close();
      }
    };
    await run('real', piCommand(version)!);
    await run('fake', [process.execPath, '--import', TSX_LOADER, FAKE, '--pi-version', version]);
  });

  after(async () => {
    llm?.release();
    await llm?.close();
    await root?.cleanup();
  });

  test('every step of the script has the same outcome', () => {
    const differ = Object.keys(seen.real).filter((key) => !isDeepStrictEqual(seen.fake[key], seen.real[key]));
    assert.deepEqual(
      differ.map((key) => `${key}: fake ${JSON.stringify(seen.fake[key])} vs real ${JSON.stringify(seen.real[key])}`),
      [],
    );
    assert.deepEqual(Object.keys(seen.fake), Object.keys(seen.real));
  });
});
