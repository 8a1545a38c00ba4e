import assert from 'node:assert/strict';
import { chmod, chown, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import type { TrafficEntry } from '../../src/api/types.ts';
import { main } from '../../src/cli/main.ts';
import { stopSignals } from '../../src/lifecycle/stop-signals.ts';
import { writeControlFile } from '../../src/web/control-file.ts';
import { startControlServer } from '../../src/web/control-server.ts';
import { createFakeHub } from '../web/fake-hub.ts';
import { signInSecretFrom } from '../../src/web/browser-protocol.ts';
import { browserStatePath } from '../../src/web/browser-state.ts';
import { httpRequest, renewRequest, sessionRequest } from '../web/helpers.ts';
import { tempDir, waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';
import { DISK, PROPOSAL, withChanges } from '../ui/review-fixtures.ts';

/** A pid no process has (above Linux's pid_max). */
const DEAD_PID = 2_147_483_646;

function captureIo(env: NodeJS.ProcessEnv, cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env, cwd },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

/** A home with no daemon: what `patchbay` sees before `patchbay daemon`. */
async function emptyHome(t: TestContext) {
  const dir = await tempDir('cli');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const env = {
    PATCHBAY_HOME: home,
    PI_IDE_LOCK_DIR: join(dir.path, 'pi-ide'),
    CLAUDE_CONFIG_DIR: join(dir.path, 'claude'),
  };
  const run = async (...argv: string[]) => {
    const io = captureIo(env, dir.path);
    const code = await main(argv, io.io);
    return { code, stdout: io.stdout(), stderr: io.stderr() };
  };
  return { dir, home, env, run };
}

/** A control server over the fake hub, where the daemon would be. */
async function withDaemon(t: TestContext) {
  const base = await emptyHome(t);
  const hub = createFakeHub();
  const server = await startControlServer({ hub, host: '127.0.0.1', port: 0, home: base.home, staticDir: base.dir.path, version: 'test' });
  t.after(() => server.close());
  return { ...base, hub, server };
}

test('status prints the door, editors, sessions, idle pi processes and problems', async (t) => {
  const { run } = await withDaemon(t);
  const { code, stdout, stderr } = await run('status');
  assert.equal(code, 0);
  assert.equal(stderr, '');
  assert.match(stdout, /^Patchbay 0\.1\.0, pid 4242, core 4243\n/);
  assert.match(stdout, /Door: 127\.0\.0\.1:40123\n {2}\/home\/u\/\.pi\/ide\/40123\.lock\n/);
  assert.match(stdout, /ID +EDITOR +FOLDERS +PORT +PID +DIALECT +ALIVE\n {2}nvim-proj +Neovim · proj +\/work\/proj +41000 +5000 +pi +yes\n/);
  assert.match(stdout, /s1 +pi +6000 +\/work\/proj +nvim-proj +cwd\n/);
  assert.match(stdout, /7000 +\/work\/other +pi-ide is not installed/);
  assert.match(stdout, /\/home\/u\/\.pi\/ide\/999\.lock +"pid" must be a number/);
  assert.match(stdout, /Other tools' lockfiles \(another protocol's; left alone\):\n {2}PATH +WHOSE\n {2}\/home\/u\/\.pi\/ide\/51234\.lock +Pi IDE Protocol v1 \(VS Code, pid 4242\)\n/);
  assert.doesNotMatch(stdout.split("Other tools'")[0]!, /51234/, 'not among the invalid ones');
  assert.match(stdout, /Pending diffs: 2\n/);
  assert.match(stdout, /Warning: the store was unreadable and moved aside\n$/);
});

test('status --json prints exactly the snapshot', async (t) => {
  const { run, hub } = await withDaemon(t);
  const { code, stdout } = await run('status', '--json');
  assert.equal(code, 0);
  const printed = JSON.parse(stdout);
  assert.deepEqual(printed, hub.state);
  for (const key of ['door', 'editors', 'sessions', 'diffs']) assert.ok(key in printed, key);
});

test('bind moves a session and says where; an unknown id fails with exit 1', async (t) => {
  const { run, hub } = await withDaemon(t);
  const none = await run('bind', 's1', 'none');
  assert.equal(none.code, 0);
  assert.equal(none.stdout, 'session s1 → Patchbay review (none)\n');
  assert.equal(hub.state.sessions[0]!.editorId, null);
  const back = await run('bind', 's1', 'nvim-proj');
  assert.equal(back.stdout, 'session s1 → editor nvim-proj (manual)\n');

  const unknown = await run('bind', 'zz', 'none');
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, 'patchbay: no session with id "zz"\n');
  assert.equal(unknown.stdout, '');
});

test('bind warns when the chosen editor has other folders open', async (t) => {
  const { run, hub } = await withDaemon(t);
  const site = { ...hub.state.editors[0]!, id: 'code-site', ideName: 'VS Code', workspaceFolders: ['/work/site'], port: 41001 };
  hub.state.editors.push(site);
  const moved = await run('bind', 's1', 'code-site');
  assert.equal(moved.code, 0);
  assert.equal(moved.stdout, 'session s1 → editor code-site (manual)\n');
  assert.equal(
    moved.stderr,
    "patchbay: warning: editor code-site's folders (/work/site) do not contain /work/proj: its diagnostics and open files are about another project, and the agent's edits open there\n",
  );
  const home = await run('bind', 's1', 'nvim-proj');
  assert.equal(home.stderr, '', 'no warning for an editor with the session’s folder open');
});

test('a wrong command line prints the usage on stderr and exits 2', async (t) => {
  const { run } = await emptyHome(t);
  const missing = await run('bind', 's1');
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^patchbay bind: missing <editorId\|none\|auto>\nUsage: patchbay bind/);
  const unknownOption = await run('status', '--color');
  assert.equal(unknownOption.code, 2);
  assert.match(unknownOption.stderr, /^patchbay status: unknown option --color \(known: --json, --watch\)\nUsage: patchbay status/);
  const flagWithValue = await run('status', '--json=yes');
  assert.equal(flagWithValue.code, 2);
  assert.match(flagWithValue.stderr, /^patchbay status: --json takes no value\n/);
  const missingValue = await run('diffs', 'accept-all', '--session');
  assert.equal(missingValue.code, 2);
  assert.match(missingValue.stderr, /^patchbay diffs: --session needs a value\n/);
  const optionAsValue = await run('diffs', 'accept-all', '--session', '--json');
  assert.equal(optionAsValue.code, 2);
  assert.match(optionAsValue.stderr, /^patchbay diffs: --session needs a value \(write --session=--json if "--json" is meant as one\)\n/);
  const unknownCommand = await run('frobnicate');
  assert.equal(unknownCommand.code, 2);
  assert.match(unknownCommand.stderr, /^patchbay: unknown command "frobnicate"\n\nUsage: patchbay <command>/);
  const nothing = await run();
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /^Usage: patchbay <command>/);
});

test('--help prints usage on stdout for patchbay and for each command', async (t) => {
  const { run } = await emptyHome(t);
  const top = await run('--help');
  assert.equal(top.code, 0);
  for (const name of ['daemon', 'status', 'events', 'bind', 'restore', 'diffs', 'models', 'suggestion-model', 'autoconnect', 'settings', 'pause', 'resume', 'open', 'start']) {
    assert.match(top.stdout, new RegExp(`\\n  ${name} `), name);
    if (name === 'start') continue; // start parses its own arguments
    const one = await run(name, '--help');
    assert.equal(one.code, 0, name);
    assert.match(one.stdout, /^Usage:/, name);
    assert.equal(one.stderr, '', name);
  }
});

test('without a daemon, commands say Patchbay is not running and exit 1', async (t) => {
  const { run, home } = await emptyHome(t);
  const { code, stdout, stderr } = await run('status');
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.equal(stderr, `patchbay: Patchbay is not running (no ${join(home, 'control.json')}). Start it with: patchbay daemon\n`);
});

test('a control.json left by a dead daemon is reported as not running', async (t) => {
  const { run, home } = await emptyHome(t);
  await writeControlFile(home, { host: '127.0.0.1', port: 9, pid: DEAD_PID, token: 'a'.repeat(64), version: 'x' });
  const { code, stderr } = await run('diffs');
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`^patchbay: Patchbay is not running \\(pid ${DEAD_PID} in .*control\\.json has exited\\)\\. Start it with: patchbay daemon\\n$`));
});

test('a live pid whose port refuses is reported with the port', async (t) => {
  const { run, home } = await emptyHome(t);
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  await writeControlFile(home, { host: '127.0.0.1', port, pid: process.pid, token: 'a'.repeat(64), version: 'x' });
  const { code, stderr } = await run('status');
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`^patchbay: Patchbay \\(pid ${process.pid}\\) is not answering on 127\\.0\\.0\\.1:${port} .*: connection refused\\n$`));
});

test('diffs lists pending edits and recent decisions; --json prints both lists', async (t) => {
  const { run, hub } = await withDaemon(t);
  const now = Date.now();
  hub.state.diffs[0]!.createdAt = now - 12_000;
  hub.state.diffs[1]!.createdAt = now - 5_000;
  hub.state.history.push({ id: 'd0', sessionId: 's1', path: '/work/proj/old.txt', outcome: 'rejected', status: 'rejected', by: 'editor', at: now - 120_000, edited: false, tool: 'write', editorId: 'nvim-proj', agent: 'pi-ide' });
  const human = await run('diffs');
  assert.equal(human.code, 0);
  assert.match(human.stdout, /^Pending:\n {2}ID +SESSION +EDITOR +TOOL +AGE +PATH\n/);
  assert.match(human.stdout, /d1 +s1 +nvim-proj +edit +12s +\/work\/proj\/a\.txt \(open in editor\)\n/);
  assert.match(human.stdout, /d2 +s1 +patchbay +write +5s +\/work\/proj\/new\.txt \(new file\)\n/);
  assert.match(human.stdout, /Recent decisions:\n.*\n {2}d0 +rejected +editor +2m ago +\/work\/proj\/old\.txt\n$/);
  const json = JSON.parse((await run('diffs', '--json')).stdout);
  assert.deepEqual(json, { diffs: hub.state.diffs, history: hub.state.history });
});

test('diffs show prints a unified diff of the proposed change, each change numbered as the review numbers it', async (t) => {
  const { run } = await withDaemon(t);
  const edit = await run('diffs', 'show', 'd1');
  assert.equal(edit.code, 0);
  assert.equal(edit.stdout, '--- /work/proj/a.txt\ton disk\n+++ /work/proj/a.txt\tproposed\n@@ -1,2 +1,2 @@ change 1 of 1\n one\n-two\n+2\n');
  assert.equal(edit.stderr, 'patchbay: d1: 1 change, +1 −1 lines\n');
  const created = await run('diffs', 'show', 'd2');
  assert.match(created.stdout, /^--- \/work\/proj\/new\.txt\tnew file\n\+\+\+ \/work\/proj\/new\.txt\tproposed\n@@ -0,0 \+1,1 @@ change 1 of 1\n\+brand new\n$/);
  const missing = await run('diffs', 'show', 'nope');
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, 'patchbay: no diff with id "nope"\n');
});

test('diffs show on a decided diff prints what was written, and who decided on stderr', async (t) => {
  const { run, hub } = await withDaemon(t);
  assert.equal((await run('diffs', 'accept', 'd1')).code, 0);
  const accepted = await run('diffs', 'show', 'd1');
  assert.equal(accepted.code, 0);
  assert.equal(accepted.stdout, '--- /work/proj/a.txt\ton disk\n+++ /work/proj/a.txt\twritten\n@@ -1,2 +1,2 @@ change 1 of 1\n one\n-two\n+2\n');
  assert.match(accepted.stderr, /^patchbay: d1 accepted in Patchbay \(pi-ide, \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\npatchbay: d1: 1 change, \+1 −1 lines\n$/);
  assert.equal((await run('diffs', 'reject', 'd2')).code, 0);
  const rejected = await run('diffs', 'show', 'd2');
  assert.match(rejected.stdout, /^--- \/work\/proj\/new\.txt\tnew file\n\+\+\+ \/work\/proj\/new\.txt\tproposed \(rejected\)\n/);
  assert.match(rejected.stderr, /^patchbay: d2 rejected in Patchbay/);
  hub.details.get('d1')!.contentsNotKept = 'too large to keep in the history';
  const notKept = await run('diffs', 'show', 'd1');
  assert.equal(notKept.code, 0);
  assert.equal(notKept.stdout, '');
  assert.match(notKept.stderr, /\npatchbay: what was proposed and written for d1 is not kept: too large to keep in the history\n$/);
});

test('diffs accept --changes writes only those changes, the agent is told which were rejected, and a second accept says when and where', async (t) => {
  const { run, hub } = await withDaemon(t);
  const summary = { ...hub.state.diffs[0]!, id: 'd5', path: '/work/proj/src/inventory.ts', inEditor: false };
  hub.state.diffs.push(summary);
  hub.details.set('d5', { ...summary, oldContents: DISK, newContents: PROPOSAL, decision: null, finalContents: null });
  const shown = await run('diffs', 'show', 'd5');
  assert.deepEqual(shown.stdout.match(/^@@ .*$/gm), ['@@ -1,4 +1,4 @@ change 1 of 3', '@@ -12,9 +12,7 @@ change 2 of 3', '@@ -23,4 +21,8 @@ change 3 of 3']);
  assert.equal(shown.stderr, 'patchbay: d5: 3 changes, +6 −4 lines\n');
  const bad = await run('diffs', 'accept', 'd5', '--changes', '1,4');
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'patchbay: the proposal has 3 changes; there is no change 4\n');
  assert.equal((await run('diffs', 'accept', 'd5', '--changes', 'one')).code, 2);
  const accepted = await run('diffs', 'accept', 'd5', '--changes', '1,3', '--reason', 'keep the loop');
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, /^accepted d5 \/work\/proj\/src\/inventory\.ts \(2 of 3 changes\)\n  pi-ide was told: Patchbay: accepted 2 of 3 changes .*change 2 \(line 15 of your proposal\) rejected.*Their reason: "keep the loop"\.\n$/);
  assert.equal(hub.details.get('d5')!.finalContents, withChanges(1, 3));
  const again = await run('diffs', 'accept', 'd5');
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^patchbay: d5 was already accepted in Patchbay \(2 of 3 changes\) at \d{4}-\d\d-\d\d \d\d:\d\d UTC\n$/);
  const history = await run('diffs');
  assert.match(history.stdout, /d5 +accepted \(2 of 3 changes\) +patchbay/);
});

test('diffs show colours the diff on a terminal, unless NO_COLOR; FORCE_COLOR colours it anywhere', async (t) => {
  const { dir, env } = await withDaemon(t);
  const show = async (extraEnv: NodeJS.ProcessEnv, isTTY: boolean) => {
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s), isTTY }, stderr: { write: () => {} }, env: { ...env, ...extraEnv }, cwd: dir.path };
    assert.equal(await main(['diffs', 'show', 'd1'], io), 0);
    return out;
  };
  const coloured = '\x1b[1m--- /work/proj/a.txt\ton disk\x1b[0m\n\x1b[1m+++ /work/proj/a.txt\tproposed\x1b[0m\n\x1b[36m@@ -1,2 +1,2 @@ change 1 of 1\x1b[0m\n one\n\x1b[31m-two\x1b[0m\n\x1b[32m+2\x1b[0m\n';
  const plain = '--- /work/proj/a.txt\ton disk\n+++ /work/proj/a.txt\tproposed\n@@ -1,2 +1,2 @@ change 1 of 1\n one\n-two\n+2\n';
  assert.equal(await show({}, true), coloured, 'a terminal');
  assert.equal(await show({}, false), plain, 'a pipe');
  assert.equal(await show({ NO_COLOR: '1' }, true), plain, 'NO_COLOR');
  assert.equal(await show({ NO_COLOR: '' }, true), coloured, 'an empty NO_COLOR does not count');
  assert.equal(await show({ TERM: 'dumb' }, true), plain, 'a dumb terminal');
  assert.equal(await show({ FORCE_COLOR: '1', NO_COLOR: '1' }, false), coloured, 'FORCE_COLOR wins');
  assert.equal(await show({ FORCE_COLOR: '0' }, true), plain, 'FORCE_COLOR=0 turns it off');
});

test('diffs accept sends the contents of --contents-file; reject and the -all forms decide', async (t) => {
  const { run, hub, dir } = await withDaemon(t);
  await writeFile(join(dir.path, 'final.txt'), 'one\nTWO, edited\n');
  const accepted = await run('diffs', 'accept', 'd1', '--contents-file', 'final.txt');
  assert.equal(accepted.code, 0);
  assert.equal(
    accepted.stdout,
    'accepted d1 /work/proj/a.txt (edited by you)\n  pi-ide was told: Patchbay: the person edited your proposal for /work/proj/a.txt before it was written. The file now differs from your proposal: read /work/proj/a.txt again before you change it further.\n',
  );
  assert.deepEqual(hub.calls.at(-1), { method: 'diffs.accept', params: { id: 'd1', contents: 'one\nTWO, edited\n' } });

  const again = await run('diffs', 'reject', 'd1');
  assert.equal(again.code, 1);
  assert.equal(again.stderr, 'patchbay: d1 was already accepted in Patchbay (edited by you) at 2023-11-14 22:13 UTC\n');

  const noSession = await run('diffs', 'reject-all');
  assert.equal(noSession.code, 2);
  assert.match(noSession.stderr, /--session <id> is required/);

  const all = await run('diffs', 'reject-all', '--session', 's1');
  assert.equal(all.stdout, 'rejected d2 /work/proj/new.txt\n');
  const none = await run('diffs', 'accept-all', '--session', 's1');
  assert.equal(none.stdout, 'No pending diffs in session s1.\n');

  const badFile = await run('diffs', 'accept', 'd2', '--contents-file', 'nope.txt');
  assert.equal(badFile.code, 1);
  assert.equal(badFile.stderr, 'patchbay: --contents-file nope.txt: no such file\n');
});

test('--contents-file is read only from a regular file, never through a symlink nor from a FIFO (which would hang the command)', { skip: process.platform === 'win32' }, async (t) => {
  const { run, hub, dir } = await withDaemon(t);
  await writeFile(join(dir.path, 'secret.txt'), 'a secret\n');
  await symlink(join(dir.path, 'secret.txt'), join(dir.path, 'final.txt'));
  execFileSync('mkfifo', [join(dir.path, 'fifo.txt')]);
  const calls = hub.calls.length;
  const viaLink = await run('diffs', 'accept', 'd1', '--contents-file', 'final.txt');
  assert.equal(viaLink.code, 1);
  assert.equal(viaLink.stderr, 'patchbay: --contents-file final.txt is not read: it is a symlink (only a regular file is read, and not through a symlink: give the file itself)\n');
  const fifo = await withTimeout(run('diffs', 'accept', 'd1', '--contents-file', 'fifo.txt'), WAIT_MS, 'a --contents-file that is a FIFO');
  assert.match(fifo.stderr, /fifo\.txt is not read: it is a FIFO/);
  assert.equal(hub.calls.length, calls, 'nothing was decided');
});

test('models lists each session’s models; --json prints them as they are', async (t) => {
  const { run, hub } = await withDaemon(t);
  const human = await run('models');
  assert.equal(human.stdout, 'Session s1: current openai/gpt-4o\n  MODEL          NAME\n  openai/gpt-4o  GPT-4o\n');
  const json = await run('models', '--session', 's1', '--json');
  assert.deepEqual(JSON.parse(json.stdout), hub.models);
  assert.deepEqual(hub.calls.at(-1), { method: 'models.list', params: { sessionId: 's1' } });
  const refresh = await run('models', '--refresh');
  assert.equal(refresh.code, 2);
  await run('models', '--refresh', '--session', 's1');
  assert.deepEqual(hub.calls.at(-1), { method: 'models.refresh', params: { sessionId: 's1' } });
});

test('suggestion-model shows and sets the choice, warning about CLI overrides', async (t) => {
  const { run, hub } = await withDaemon(t);
  hub.models[0]!.cliOverride = 'anthropic/haiku';
  const shown = await run('suggestion-model');
  assert.equal(shown.code, 0);
  assert.equal(shown.stdout, 'global  editor\n');
  assert.match(shown.stderr, /^patchbay: warning: session s1 was started with a suggestion model override \(anthropic\/haiku\)/);

  const set = await run('suggestion-model', 'openai/gpt-4o', '--editor', 'nvim-proj');
  assert.equal(set.code, 0);
  assert.equal(set.stdout, 'editor nvim-proj: openai/gpt-4o\n');
  assert.equal(hub.state.settings.suggestionModelPerEditor['nvim-proj'], 'openai/gpt-4o');
  const all = await run('suggestion-model');
  assert.equal(all.stdout, 'global            editor\neditor nvim-proj  openai/gpt-4o\n');

  const bad = await run('suggestion-model', 'gpt 4');
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'patchbay: "gpt 4" is not a model\n');
});

test('autoconnect shows the global, project and effective values and sets a project’s', async (t) => {
  const { run, hub, dir } = await withDaemon(t);
  const set = await run('autoconnect', '--project', 'proj', 'off');
  assert.equal(set.code, 0);
  const projectDir = join(dir.path, 'proj');
  assert.deepEqual(hub.calls.at(-1), { method: 'autoconnect.set', params: { project: projectDir, value: false } });
  assert.equal(
    set.stdout,
    `global     unset  /home/u/.pi/agent/settings.json\nproject    off    ${projectDir}/.pi/settings.json\neffective  off\n`,
  );
  const global = await run('autoconnect', '--json');
  assert.deepEqual(JSON.parse(global.stdout), {
    globalFile: '/home/u/.pi/agent/settings.json',
    global: null,
    projectFile: null,
    project: null,
    effective: true,
  });
  const bad = await run('autoconnect', 'maybe');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /expected on, off or unset, not "maybe"/);
});

test('settings prints every setting and sets one from a JSON value', async (t) => {
  const { run, hub } = await withDaemon(t);
  const shown = await run('settings');
  assert.match(shown.stdout, /^allowPiExtensions +false\nclaude +true\ndiagnosticsDeadlineMs +1500\n/);
  assert.match(shown.stdout, /reviewRoute +"editor-and-patchbay"\n/);
  assert.deepEqual(JSON.parse((await run('settings', '--json')).stdout), hub.state.settings);

  const set = await run('settings', 'set', 'diagnosticsDeadlineMs', '2000');
  assert.equal(set.code, 0);
  assert.equal(set.stdout, 'diagnosticsDeadlineMs 2000\n');
  assert.equal(hub.state.settings.diagnosticsDeadlineMs, 2000);

  const notJson = await run('settings', 'set', 'reviewRoute', 'patchbay-only');
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /must be JSON \(quote strings: '"patchbay-only"'\)/);
  const unknown = await run('settings', 'set', 'colour', '"red"');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown setting "colour" \(known: allowPiExtensions, claude, diagnosticsDeadlineMs/);
  const refused = await run('settings', 'set', 'diagnosticsDeadlineMs', '"soon"');
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'patchbay: diagnosticsDeadlineMs must be a number\n');
});

test('traffic prints a session’s frames oldest first with directions and timing; --grep and --limit narrow them', async (t) => {
  const { run, hub } = await withDaemon(t);
  const at = Date.UTC(2026, 10, 22, 9, 30, 0, 0);
  const entries: TrafficEntry[] = [
    { at, dir: 'in', editorId: null, method: 'tools/call', tool: 'getDiagnostics', id: 7, bytes: 60, preview: '{"jsonrpc":"2.0","id":7,"method":"tools/call"}' },
    { at: at + 3, dir: 'up', editorId: 'ed-1', method: 'tools/call', tool: 'getDiagnostics', id: 1, bytes: 60, preview: '{"id":1}' },
    { at: at + 15, dir: 'down', editorId: 'ed-1', method: null, tool: null, id: 1, bytes: 2048, preview: '{"id":1,"result":\n  {"x": 1}}' },
    { at: at + 16, dir: 'out', editorId: null, method: null, tool: null, id: 7, bytes: 2048, preview: 'x'.repeat(150) },
    { at: at + 20, dir: 'down', editorId: 'ed-1', method: 'selection_changed', tool: null, id: null, bytes: 90, preview: '{"method":"selection_changed"}' },
  ];
  hub.handlers['traffic'] = ({ sessionId, limit }) => {
    assert.equal(sessionId, 's1');
    return limit === undefined ? entries : entries.slice(-limit);
  };
  const shown = await run('traffic', 's1');
  assert.equal(shown.code, 0, shown.stderr);
  const lines = shown.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^TIME +DIR +METHOD +ID +SIZE +TOOK +FRAME$/);
  const clock = (ms: number) => new Date(at + ms).toTimeString().slice(0, 8) + `.${String(ms).padStart(3, '0')}`;
  assert.match(lines[1]!, new RegExp(`^${clock(0)} +→P +tools/call getDiagnostics +7 +60 B +16 ms +\\{"jsonrpc"`));
  assert.match(lines[2]!, /→E +tools\/call getDiagnostics +1 +60 B +12 ms/);
  assert.match(lines[3]!, /E→ +↳ tools\/call getDiagnostics +1 +2\.0 KiB +\{"id":1,"result": \{"x": 1\}\}$/, 'one line per frame, saying what it answers');
  assert.ok(lines[4]!.endsWith(`${'x'.repeat(99)}…`), 'long frames are cut');
  assert.match(lines[5]!, /E→ +selection_changed +90 B/);

  const grep = await run('traffic', 's1', '--grep', 'selection', '--json');
  assert.deepEqual(JSON.parse(grep.stdout), [entries[4]]);
  const newest = await run('traffic', 's1', '--limit', '2', '--json');
  assert.deepEqual(JSON.parse(newest.stdout), entries.slice(-2));
  const bad = await run('traffic', 's1', '--limit', 'lots');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--limit takes a whole number/);
  hub.handlers['traffic'] = () => [];
  assert.equal((await run('traffic', 's1')).stdout, 'No traffic recorded for this session.\n');
});

test('pause and resume switch routing', async (t) => {
  const { run, hub } = await withDaemon(t);
  assert.equal((await run('pause')).stdout, 'Routing paused.\n');
  assert.equal(hub.state.paused, true);
  assert.equal((await run('resume')).stdout, 'Routing resumed.\n');
  assert.equal(hub.state.paused, false);
});

test('open --print prints a one-time link, its secret in the fragment, that signs a browser in once', async (t) => {
  const { run, server } = await withDaemon(t);
  const { code, stdout } = await run('open', '--print');
  assert.equal(code, 0);
  const url = new URL(stdout.trim());
  assert.equal(`${url.origin}${url.pathname}${url.search}`, `http://127.0.0.1:${server.port}/`);
  const secret = signInSecretFrom(url.hash);
  assert.ok(secret, url.hash);
  assert.equal((await sessionRequest(server.port, url.origin, { signin: secret })).status, 200);
  assert.equal((await sessionRequest(server.port, url.origin, { signin: secret })).status, 401);
});

/** A $BROWSER that records its whole command line (what every user can read in /proc) and exits with `code`. */
async function fakeBrowser(dir: string, code: number) {
  const opened = join(dir, 'opened.txt');
  const browser = join(dir, 'browser.sh');
  await writeFile(browser, `#!/bin/sh\nprintf '%s' "$*" > '${opened}'\nexit ${code}\n`);
  await chmod(browser, 0o755);
  return { browser, commandLine: () => readFile(opened, 'utf8') };
}

test('open gives the browser a page only you can read, so no secret is in any command line; the page signs in once and is then deleted', async (t) => {
  const { env, home, dir, server } = await withDaemon(t);
  const { browser, commandLine } = await fakeBrowser(dir.path, 0);
  const io = captureIo({ ...env, BROWSER: browser, PATCHBAY_HOME: home }, dir.path);
  assert.equal(await main(['open'], io.io), 0);
  assert.equal(io.stdout(), '');
  assert.equal(io.stderr(), '');

  const argv = await commandLine();
  assert.doesNotMatch(argv, /[0-9a-f]{64}|signin/, 'no secret where other users can read it');
  assert.match(argv, /^file:\/\/\//);
  const page = fileURLToPath(argv);
  assert.ok(page.startsWith(`${home}/`), `${page} is in Patchbay's home`);
  const info = await stat(page);
  assert.equal(info.mode & 0o777, 0o600);
  assert.equal(info.uid, process.getuid!());
  assert.equal((await stat(dirname(page))).mode & 0o077, 0, 'in a folder only you can enter');

  const link = /url=(http:[^"]+)"/.exec(await readFile(page, 'utf8'))?.[1];
  assert.ok(link, 'the page forwards the browser to a sign-in link');
  const url = new URL(link);
  assert.equal(url.origin, server.url);
  assert.equal((await sessionRequest(server.port, url.origin, { signin: signInSecretFrom(url.hash)! })).status, 200);
  await waitFor(() => !existsSync(page), { message: 'the used page deleted' });
  assert.equal((await sessionRequest(server.port, url.origin, { signin: signInSecretFrom(url.hash)! })).status, 401);
});

test('open prints a link to paste, and why, when no browser can be opened', async (t) => {
  const { env, home, dir, server } = await withDaemon(t);
  const { browser } = await fakeBrowser(dir.path, 3);
  for (const BROWSER of [browser, join(dir.path, 'no-such-browser')]) {
    const io = captureIo({ ...env, BROWSER, PATCHBAY_HOME: home }, dir.path);
    assert.equal(await main(['open'], io.io), 0);
    assert.match(io.stdout(), new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/#signin=[0-9a-f]{64}\n$`));
    assert.match(io.stderr(), /^patchbay: could not open a browser: .*(exited with code 3|could not start).*Paste this link into your browser's address bar/);
  }
  assert.deepEqual(await readdir(join(home, 'sign-in')), [], 'the pages no browser opened are gone');
});

test('open --revoke-all signs every browser out, with the daemon running or not', async (t) => {
  const { run, server, home } = await withDaemon(t);
  const link = new URL((await run('open', '--print')).stdout.trim());
  const signedIn = await sessionRequest(server.port, link.origin, { signin: signInSecretFrom(link.hash)! });
  const { credential } = JSON.parse(signedIn.body) as { credential: string };

  const revoked = await run('open', '--revoke-all');
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(revoked.stdout, 'Every browser is signed out (0 open pages closed); `patchbay open` signs one in again.\n');
  assert.equal((await renewRequest(server.port, link.origin, credential)).status, 401);

  const again = new URL((await run('open', '--print')).stdout.trim());
  const second = JSON.parse((await sessionRequest(server.port, again.origin, { signin: signInSecretFrom(again.hash)! })).body) as { credential: string };
  await server.close();
  const offline = await run('open', '--revoke-all');
  assert.equal(offline.code, 0, offline.stderr);
  assert.equal(offline.stdout, 'Every browser is signed out; `patchbay open` signs one in again.\n');
  const next = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, version: 'test' });
  t.after(() => next.close());
  assert.equal((await renewRequest(next.port, next.url, second.credential)).status, 401, 'the next start uses the new key');
  assert.equal((await run('open', '--revoke-all', '--print')).code, 2);
});

test('open --revoke-all that cannot save the new key still signs every browser out of the running daemon, and fails saying so', async (t) => {
  const { run, server, home } = await withDaemon(t);
  const link = new URL((await run('open', '--print')).stdout.trim());
  const signedIn = await sessionRequest(server.port, link.origin, { signin: signInSecretFrom(link.hash)! });
  const { credential } = JSON.parse(signedIn.body) as { credential: string };
  // A folder in browser.json's place: no new key can be written there, not even by root.
  await rm(browserStatePath(home), { force: true });
  await mkdir(join(browserStatePath(home), 'in-the-way'), { recursive: true });

  const revoked = await run('open', '--revoke-all');
  assert.equal(revoked.code, 1);
  assert.match(revoked.stderr, /signed out of the running Patchbay, but .*browser\.json/);
  assert.equal((await renewRequest(server.port, link.origin, credential)).status, 401, 'the old sign-in is refused');

  await server.close();
  const offline = await run('open', '--revoke-all');
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /No Patchbay is running, but the new key could not be saved .*remove .*browser\.json before Patchbay starts again/);
});

test('restore goes through the daemon when it runs', async (t) => {
  const { run, hub } = await withDaemon(t);
  const { code, stdout } = await run('restore');
  assert.equal(code, 0);
  assert.equal(stdout, 'restored /home/u/.pi/ide/41000.lock\n');
  assert.equal(hub.calls.at(-1)?.method, 'restore');
});

test('restore without a daemon puts live editors’ lockfiles back and deletes dead ones’', async (t) => {
  const { run, env } = await emptyHome(t);
  const adopted = join(env.PI_IDE_LOCK_DIR, '.patchbay');
  await mkdir(adopted, { recursive: true, mode: 0o700 });
  const lock = (pid: number) => JSON.stringify({ pid, workspaceFolders: ['/work/proj'], ideName: 'Neovim', transport: 'ws', authToken: 't' });
  await writeFile(join(adopted, '41000.lock'), lock(process.pid), { mode: 0o600 });
  await writeFile(join(adopted, '41001.lock'), lock(DEAD_PID), { mode: 0o600 });
  const { code, stdout, stderr } = await run('restore');
  assert.equal(stderr, '');
  assert.equal(code, 0);
  assert.equal(stdout, `restored ${join(env.PI_IDE_LOCK_DIR, '41000.lock')}\nremoved ${join(adopted, '41001.lock')}\n`);
  assert.deepEqual((await readdir(env.PI_IDE_LOCK_DIR)).sort(), ['41000.lock'], 'and no empty .patchbay/ is left');
});

/** The core the daemon tests' keeper starts: the in-memory hub behind a real control server. */
const FAKE_CORE = fileURLToPath(new URL('./fake-core.ts', import.meta.url));

/** Another user (nobody); we run as root here, so files can be given to them. */
const OTHER_UID = 65534;
const asRoot = process.getuid?.() === 0 ? false : 'needs root to make files another user owns';

test('daemon refuses a home another user owns, and reads nothing in it', { skip: asRoot }, async (t) => {
  const { env, dir, home } = await emptyHome(t);
  await mkdir(home, { mode: 0o700 });
  await writeFile(join(home, 'config.json'), '{"settings":{"piCommand":"/tmp/their-program"}}', { mode: 0o600 });
  await chown(home, OTHER_UID, OTHER_UID);
  let created = false;
  const io = captureIo(env, dir.path);
  const code = await main(['daemon'], io.io, {
    coreEntry: () => {
      created = true;
      return { script: FAKE_CORE };
    },
    stopRequested: async () => 'SIGTERM',
  });
  assert.equal(code, 1);
  assert.equal(created, false, 'no core was started on their files');
  assert.match(io.stderr(), new RegExp(`^patchbay: Patchbay's home ${home} belongs to uid ${OTHER_UID}, not to you`));
});

test('daemon refuses to start when another user’s patchbay.sock claims Patchbay is running, naming the socket’s owner', { skip: asRoot }, async (t) => {
  const { env, dir, home } = await emptyHome(t);
  await mkdir(home, { mode: 0o700 });
  const socket = join(home, 'patchbay.sock');
  const liar = createServer((s) => s.end('{"pid":1,"kind":"daemon"}\n')).listen(socket);
  await new Promise((r) => liar.once('listening', r));
  t.after(() => new Promise((r) => liar.close(r)));
  await chown(socket, OTHER_UID, OTHER_UID);
  const io = captureIo(env, dir.path);
  const code = await main(['daemon'], io.io, { coreEntry: () => ({ script: FAKE_CORE }), stopRequested: async () => 'SIGTERM' });
  assert.equal(code, 1);
  assert.doesNotMatch(io.stderr(), /already running/, 'not the lie it was told');
  assert.match(io.stderr(), new RegExp(`${socket} belongs to uid ${OTHER_UID}`));
});

test('commands refuse a control.json another user put in the home, and send its server nothing', { skip: asRoot }, async (t) => {
  const { run, home } = await emptyHome(t);
  const requests: string[] = [];
  const theirs = createServer((s) => {
    requests.push('connection');
    s.destroy();
  }).listen(0, '127.0.0.1');
  await new Promise((r) => theirs.once('listening', r));
  t.after(() => new Promise((r) => theirs.close(r)));
  const port = (theirs.address() as { port: number }).port;
  await writeControlFile(home, { host: '127.0.0.1', port, pid: process.pid, token: 'a'.repeat(64), version: 'x' });
  await chown(join(home, 'control.json'), OTHER_UID, OTHER_UID);
  const status = await run('status');
  assert.equal(status.code, 1);
  assert.match(status.stderr, new RegExp(`control\\.json.*belongs to uid ${OTHER_UID}`));
  assert.deepEqual(requests, []);
});

test('commands refuse a control.json whose host is not loopback', async (t) => {
  const { run, home } = await emptyHome(t);
  await writeControlFile(home, { host: '192.0.2.1', port: 4000, pid: process.pid, token: 'a'.repeat(64), version: 'x' });
  const status = await run('status');
  assert.equal(status.code, 1);
  assert.match(status.stderr, /control\.json: "host" must be a loopback address \(127\.x\.x\.x or ::1\), not "192\.0\.2\.1"/);
});

test('daemon serves the hub until asked to stop, then closes it and removes control.json', async (t) => {
  const { env, dir, home, run } = await emptyHome(t);
  let stop!: (signal: string) => void;
  const stopRequested = new Promise<string>((r) => (stop = r));
  const io = captureIo(env, dir.path);
  const running = main(['daemon'], io.io, {
    coreEntry: () => ({ script: FAKE_CORE, env: { ...process.env, ...env } }),
    stopRequested: () => stopRequested,
  });
  const deadline = Date.now() + 15_000;
  while (!io.stdout() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.match(io.stdout(), /^Patchbay 0\.1\.0 running \(pid \d+\): door 127\.0\.0\.1:40123, control http:\/\/127\.0\.0\.1:\d+\n$/);
  assert.match(io.stderr(), /warning: the store was unreadable and moved aside/);

  const status = await run('status', '--json');
  assert.equal(status.code, 0);
  assert.equal(JSON.parse(status.stdout).door.port, 40123);
  const second = await run('daemon');
  assert.equal(second.code, 1);
  assert.equal(second.stderr, `patchbay: Patchbay is already running for ${home} (pid ${process.pid}, the daemon)\n`);

  stop('SIGTERM');
  assert.equal(await running, 0);
  assert.match(io.stderr(), /fake hub closed: Patchbay is stopping\n/);
  assert.match(io.stderr(), /patchbay: stopping \(SIGTERM\)\n/);
  assert.deepEqual(await readdir(home), ['browser.json'], 'only the sign-in key (and the port) outlive it');
});

test('a closed terminal (SIGHUP) stops a command cleanly only while it has one; under nohup it keeps running', () => {
  for (const [hasTerminal, signals] of [
    [true, ['SIGINT', 'SIGTERM', 'SIGHUP']],
    [false, ['SIGINT', 'SIGTERM']],
  ] as const) {
    assert.deepEqual(stopSignals(hasTerminal), signals, `with a terminal: ${hasTerminal}`);
  }
});
