/**
 * A child process hosting the benchmark's editors (FakeEditor, pi dialect), so their work runs
 * outside both the relay under test and the measuring agents. Editors decide every openDiff at
 * once (FILE_SAVED with the proposed contents), never ping, answer getDiagnostics with one
 * small diagnostic, and keep no message history (a benchmark would otherwise hoard every frame).
 *
 * CLI: node --import tsx test/bench/editor-host.ts
 * stdout: {"ready":true,"pid":N}, then command results (test/peers/cli.ts protocol).
 * stdin:
 *   {"cmd":"start","lockDir":"…","folder":"…","ideName"?:"…","writeLockfile"?:bool}
 *       → {"key":N,"port":N,"token":"…","lockfile":"…"|null}
 *   {"cmd":"burst","key":N,"count":N}  → sends `count` selection_changed to every client of
 *       editor `key` (as a real editor broadcasts) → {"clients":N,"frames":N}
 *   {"cmd":"clients","key":N}          → {"clients":N}
 *   {"cmd":"stop"}                     → stops every editor, exits
 */
import { emit, field, isMain, serveCommands, startupFailed, type Command } from '../peers/cli.ts';
import { FakeEditor, type DiagnosticsMap } from '../peers/fake-editor.ts';

/** One warning, as pi sees before a turn: small, but real JSON to translate. */
export function benchDiagnostics(folder: string): DiagnosticsMap {
  return {
    [`file://${folder}/src/main.ts`]: [
      {
        message: "'unused' is declared but its value is never read.",
        severity: 2,
        source: 'ts',
        code: 6133,
        range: { start: { line: 11, character: 6 }, end: { line: 11, character: 12 } },
      },
    ],
  };
}

export interface HostedEditor {
  key: number;
  port: number;
  token: string;
  lockfile: string | null;
}

export class EditorHost {
  private readonly editors = new Map<number, FakeEditor>();
  private nextKey = 1;

  async start(options: { lockDir: string; folder: string; ideName?: string; writeLockfile?: boolean }): Promise<HostedEditor> {
    let editor: FakeEditor | undefined;
    editor = await FakeEditor.start({
      lockDir: options.lockDir,
      workspaceFolders: [options.folder],
      ideName: options.ideName ?? 'Neovim',
      writeLockfile: options.writeLockfile ?? true,
      pingIntervalMs: 0,
      autoDecide: 'saved',
      diagnostics: benchDiagnostics(options.folder),
      onEvent: (event) => {
        // The double records every frame and every closed tab; a benchmark keeps none of it.
        if (event.type === 'message') {
          event.client.rpc.received.length = 0;
          if (editor) editor.received.length = 0;
        } else if (event.type === 'diffClosed' && editor) editor.closedDiffs.length = 0;
      },
    });
    const key = this.nextKey++;
    this.editors.set(key, editor);
    return { key, port: editor.port, token: editor.authToken, lockfile: editor.lockfile };
  }

  /** A burst of selections as fast as the editor can write them, to every connected client. */
  burst(key: number, count: number): { clients: number; frames: number } {
    const editor = this.editor(key);
    const folder = editor.workspaceFolders[0] ?? '/';
    let frames = 0;
    for (let i = 0; i < count; i++) {
      const line = i % 500;
      frames += editor.sendSelection({
        filePath: `${folder}/src/main.ts`,
        text: 'const answer = compute(input);',
        start: { line, character: 4 },
        end: { line, character: 34 },
      });
    }
    return { clients: editor.openClients.length, frames };
  }

  clients(key: number): number {
    return this.editor(key).openClients.length;
  }

  private editor(key: number): FakeEditor {
    const editor = this.editors.get(key);
    if (!editor) throw new Error(`editor host: no editor ${key}`);
    return editor;
  }

  async close(): Promise<void> {
    await Promise.all([...this.editors.values()].map((e) => e.stop()));
    this.editors.clear();
  }
}

function count(command: Command, name: string): number {
  const value = command[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new Error(`${command.cmd}: "${name}" must be a whole number`);
  return value;
}

async function main(): Promise<void> {
  const host = new EditorHost();
  emit({ ready: true, pid: process.pid });
  serveCommands(
    {
      start: (c) =>
        host.start({
          lockDir: field(c, 'lockDir'),
          folder: field(c, 'folder'),
          ...(typeof c.ideName === 'string' ? { ideName: c.ideName } : {}),
          ...(typeof c.writeLockfile === 'boolean' ? { writeLockfile: c.writeLockfile } : {}),
        }),
      burst: (c) => host.burst(count(c, 'key'), count(c, 'count')),
      clients: (c) => ({ clients: host.clients(count(c, 'key')) }),
    },
    () => host.close(),
  );
}

if (isMain(import.meta.url)) main().catch(startupFailed);
