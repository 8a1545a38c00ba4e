// pi and Claude Code → Patchbay → a JetBrains IDE (the double of Anthropic's plugin, built on the
// MCP Kotlin SDK, whose WebSocket transport takes only subprotocol `mcp`): Patchbay offers `mcp`
// on every connection to a Claude-dialect editor, its probe included, so the IDE is listed,
// adopted and served; its changing tool list reaches Claude Code.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import WebSocket from 'ws';
import type { Snapshot } from '../../src/api/types.ts';
import { probeEditor } from '../../src/discovery/liveness.ts';
import type { FakeEditor } from '../peers/fake-editor.ts';
import { diffAnswers } from '../peers/rpc-peer.ts';
import { waitFor } from '../peers/wait.ts';
import { withEditor, type Harness } from './harness.ts';

interface Setup {
  h: Harness;
  project: string;
  idea: FakeEditor;
}

async function intellij(t: TestContext): Promise<Setup> {
  const { h, project, editor } = await withEditor(t, 'kotlin-app', { jetbrains: true });
  return { h, project, idea: editor };
}

const snapshot = (h: Harness): Promise<Snapshot> => h.hub.call('snapshot', undefined);

test('a JetBrains IDE is listed live and adopted: every connection Patchbay opens offers exactly subprotocol mcp, which its plugin requires', async (t) => {
  const { h, idea } = await intellij(t);
  const snap = await snapshot(h);
  assert.deepEqual(
    snap.editors.map((e) => [e.ideName, e.dialect, e.alive, e.authenticated]),
    [['IntelliJ IDEA', 'claude', true, true]],
  );
  assert.deepEqual(snap.invalidLockfiles, [], 'not taken for an editor that rejects its own token');
  assert.ok(snap.editors[0]!.lockfile.includes('/.patchbay/'), 'adopted, so Claude Code sees only the door');
  assert.deepEqual(idea.refused, [], 'no connection of Patchbay was refused');
  assert.ok(idea.clients.length >= 2, 'the probe and the link');
  for (const client of idea.clients) assert.equal(client.headers['sec-websocket-protocol'], 'mcp');
});

test('a probe without subprotocol mcp is what the plugin refuses (as a wrong token would be): the probe offers it', async (t) => {
  const { idea } = await intellij(t);
  const offered = await probeEditor({ port: idea.port, token: idea.authToken, dialect: 'claude', timeoutMs: 1000 });
  assert.equal(offered, 'ok');
  // The same upgrade without the subprotocol, as Patchbay's probe made it before: refused before
  // the upgrade, which the probe read as "rejects this lockfile's token".
  const status = await new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${idea.port}`, { headers: { 'x-claude-code-ide-authorization': idea.authToken } });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => reject(new Error('upgraded without mcp')));
    ws.on('error', () => {}); // the refusal itself, reported above
  });
  assert.equal(status, 400);
  assert.equal(idea.refused.at(-1)?.status, 400);
});

test("pi's diff is shown in the JetBrains IDE and decided there: edited and accepted, pi writes the edit; the decided diff is closed", async (t) => {
  const { h, project, idea } = await intellij(t);
  const pi = await h.pi(project);
  await waitFor(async () => (await snapshot(h)).sessions.some((s) => s.cwd === project && s.editorId !== null), { message: 'pi bound to the IDE' });
  const file = join(project, 'Main.kt');
  await writeFile(file, 'fun main() {}\n');
  const writing = pi.write(file, 'fun main() = println("hi")\n');
  const shown = await idea.waitForDiff();
  assert.match(shown.tabName, /^✻ \[pi\] Main\.kt \(d\d+\) ⧉$/);
  idea.decide(shown.tabName, 'saved', 'fun main() = println("hello")\n');
  assert.equal((await writing).outcome, 'saved');
  assert.equal(await readFile(file, 'utf8'), 'fun main() = println("hello")\n');
  await idea.waitForNoDiffs();
  const [record] = (await snapshot(h)).history;
  assert.deepEqual([record?.by, record?.edited], ['editor', true]);
});

test("Claude Code's diff goes to the JetBrains IDE through the door; rejected there, Claude hears DIFF_REJECTED and nothing is written", async (t) => {
  const { h, project, idea } = await intellij(t);
  const claude = await h.claudeByLockfile(project, { searchMs: 5000 });
  assert.deepEqual(claude.toolListError, null);
  assert.ok(claude.tools.some((tool) => tool.name === 'openDiff'), 'the IDE’s tools, listed through Patchbay');
  await waitFor(async () => (await snapshot(h)).sessions.some((s) => s.kind === 'claude' && s.editorId !== null), { message: 'Claude bound to the IDE' });
  await claude.prompt();
  const proposing = claude.openDiff('build.gradle.kts', 'plugins { kotlin("jvm") }\n');
  const shown = await idea.waitForDiff();
  assert.match(shown.tabName, /^✻ \[Claude Code · Patchbay\] build\.gradle\.kts \([0-9a-f]{6}\) ⧉$/);
  idea.decide(shown.tabName, 'rejected');
  const outcome = await proposing;
  assert.equal(outcome.outcome, 'rejected');
  assert.deepEqual(diffAnswers(claude.received).at(-1)?.[0], 'DIFF_REJECTED');
  await assert.rejects(readFile(join(project, 'build.gradle.kts')), { code: 'ENOENT' });
  await idea.waitForNoDiffs();
});

test("a JetBrains IDE whose tools change says so (tools.listChanged): Patchbay lists them again, and Claude Code, told, gets the new list", async (t) => {
  const { h, project, idea } = await intellij(t);
  const claude = await h.claudeByLockfile(project, { searchMs: 5000 });
  await waitFor(async () => (await snapshot(h)).sessions.some((s) => s.kind === 'claude' && s.editorId !== null), { message: 'Claude bound to the IDE' });
  const fewer = idea.tools.filter((tool) => tool.name !== 'getOpenEditors');
  assert.equal(idea.setTools(fewer), 1, 'one client: Patchbay’s link');
  const names = (list: readonly object[]) => list.map((tool) => String((tool as { name?: unknown }).name)).join(',');
  // Claude lists them again when told; the list it gets is the IDE's new one.
  await waitFor(() => names(claude.tools) === names(fewer), { message: () => `Claude's tools to be the new list (has ${names(claude.tools)})` });
  assert.ok(idea.received.filter((r) => r.msg.method === 'tools/list').length >= 2, 'Patchbay asked the IDE again');
});
