// An in-process hub with temp dirs, plus fake agents whose folders the test chooses
// (in one process every agent's real cwd would be the test runner's).
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { createHub, type Hub } from '../../src/hub.ts';
import type { HubOptions } from '../../src/options.ts';
import type { ProcessInfo } from '../../src/discovery/peer-process.ts';
import { FakeClaudeClient, type FakeClaudeOptions } from '../peers/fake-claude.ts';
import { FakeEditor, type FakeEditorOptions } from '../peers/fake-editor.ts';
import { FakePiClient, type FakePiOptions } from '../peers/fake-pi.ts';
import { tempDir, waitFor, type TempDir } from '../peers/wait.ts';
import { isolatedOptions } from '../peers/hub-options.ts';

export interface Harness {
  hub: Hub;
  root: TempDir;
  options: HubOptions;
  /** A project folder under the temp root (created). */
  folder(name: string): Promise<string>;
  editor(options: Omit<FakeEditorOptions, 'lockDir'> & { lockDir?: string }): Promise<FakeEditor>;
  pi(cwd: string, options?: Partial<FakePiOptions>): Promise<FakePiClient>;
  claude(cwd: string): Promise<FakeClaudeClient>;
  /**
   * Claude Code finding a door by itself in the Claude lock dir, as if its process descended
   * from `ancestors` (given to Patchbay's process lookup too, and to its IDE-terminal check).
   */
  claudeByLockfile(cwd: string, options?: Pick<FakeClaudeOptions, 'ideTerminal' | 'searchMs'> & { ancestors?: number[] }): Promise<FakeClaudeClient>;
  /** What the hub logged. */
  logs: string[];
  /** Process lookups made so far, failed ones included. */
  lookupAttempts(): number;
  /** Waits until the hub lists `count` editors. */
  editors(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A harness with one editor (of the options' kind) open on one project folder, closed after the test. */
export async function withEditor(t: TestContext, folder: string, options: Omit<FakeEditorOptions, 'lockDir' | 'workspaceFolders'>): Promise<{ h: Harness; project: string; editor: FakeEditor }> {
  const h = await startHarness();
  t.after(() => h.close());
  const project = await h.folder(folder);
  const editor = await h.editor({ workspaceFolders: [project], ...options });
  await h.editors(1);
  return { h, project, editor };
}

export interface HarnessFaults {
  /** Process lookups fail (erring or finding nothing, in turn) until this settles. */
  lookupsFailUntil?: Promise<unknown>;
}

export async function startHarness(
  overrides: Partial<HubOptions> = {},
  settings: Record<string, unknown> = {},
  faults: HarnessFaults = {},
): Promise<Harness> {
  const root = await tempDir('relay');
  const options = isolatedOptions(root.path, { pollMs: 50, livenessMs: 200, ...overrides });
  const cwdByPort = new Map<number, string>();
  const ancestorsByPort = new Map<number, number[]>();
  const ancestorsByPid = new Map<number, number[]>();
  const cwdByPid = new Map<number, string>();
  let nextPid = 4_000_000;
  let lookupAttempts = 0;
  let lookupsFail = faults.lookupsFailUntil !== undefined;
  void faults.lookupsFailUntil?.finally(() => (lookupsFail = false));
  const logs: string[] = [];
  const hub = await createHub(options, {
    log: (line) => logs.push(line),
    lookupPeer: async (remotePort) => {
      const attempt = ++lookupAttempts;
      if (lookupsFail) {
        if (attempt % 2 === 1) throw new Error(`lookup ${attempt} of port ${remotePort} failed`);
        return null;
      }
      const cwd = await waitFor(() => cwdByPort.get(remotePort), { timeoutMs: 1500, message: `cwd for port ${remotePort}` });
      const ancestors = ancestorsByPort.get(remotePort);
      return { pid: process.pid, cwd, command: 'fake agent', startedAt: null, ...(ancestors ? { ancestors } : {}) } satisfies ProcessInfo;
    },
    processInfo: async (pid) => {
      const cwd = cwdByPid.get(pid);
      const ancestors = ancestorsByPid.get(pid);
      return cwd ? { pid, cwd, command: 'fake claude', startedAt: null, ...(ancestors ? { ancestors } : {}) } : null;
    },
  });
  if (Object.keys(settings).length > 0) await hub.call('settings.set', { patch: settings });
  const editors: FakeEditor[] = [];
  const agents: { close(): Promise<void> }[] = [];
  const localPort = (ws: unknown): number => (ws as { _socket: { localPort: number } })._socket.localPort;
  const door = (dialect: 'pi' | 'claude'): { port: number; authToken: string } => ({
    port: hub.doorPort,
    authToken: (hub as unknown as { tokens: Record<'pi' | 'claude', string> }).tokens[dialect],
  });
  return {
    hub,
    root,
    options,
    folder: async (name) => {
      const path = join(root.path, 'projects', name);
      await mkdir(path, { recursive: true });
      return path;
    },
    editor: async (opts) => {
      const editor = await FakeEditor.start({
        lockDir: opts.dialect === 'claude' || opts.claudecode || opts.vscode || opts.jetbrains || opts.emacs ? options.claudeLockDir : options.piLockDir,
        pingIntervalMs: 0,
        ...opts,
      });
      editors.push(editor);
      return editor;
    },
    pi: async (cwd, opts = {}) => {
      const pi = await FakePiClient.connect({ cwd, ...door('pi'), ...opts });
      cwdByPort.set(localPort(pi.rpc.ws), cwd);
      agents.push(pi);
      return pi;
    },
    claude: async (cwd) => {
      const pid = nextPid++;
      cwdByPid.set(pid, cwd);
      const claude = await FakeClaudeClient.connect({ cwd, ...door('claude'), pid });
      cwdByPort.set(localPort(claude.rpc.ws), cwd);
      agents.push(claude);
      return claude;
    },
    claudeByLockfile: async (cwd, { ancestors, ...opts } = {}) => {
      const pid = nextPid++;
      cwdByPid.set(pid, cwd);
      if (ancestors) ancestorsByPid.set(pid, ancestors);
      const claude = await FakeClaudeClient.connect({ cwd, configDir: dirname(options.claudeLockDir), pid, ...opts });
      const port = localPort(claude.rpc.ws);
      if (ancestors) ancestorsByPort.set(port, ancestors);
      cwdByPort.set(port, cwd);
      agents.push(claude);
      return claude;
    },
    logs,
    lookupAttempts: () => lookupAttempts,
    editors: async (count) => {
      await waitFor(async () => (await hub.call('snapshot', undefined)).editors.filter((e) => e.alive).length === count, {
        message: `${count} live editors`,
      });
    },
    close: async () => {
      await Promise.all(agents.map((a) => a.close().catch(() => {})));
      await hub.close();
      await Promise.all(editors.map((e) => e.stop().catch(() => {})));
      await root.cleanup();
    },
  };
}
