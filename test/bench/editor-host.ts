/**
 * A child process hosting the benchmark's editors (lean-editor.ts, pi or Claude dialect), so
 * their work runs outside both the relay under test and the measuring agents.
 *
 * CLI: node --import tsx test/bench/editor-host.ts
 * stdout: {"ready":true,"pid":N}, then command results (test/peers/cli.ts protocol).
 * stdin:
 *   {"cmd":"start","lockDir":"…","folder":"…","dialect"?:"pi"|"claude","ideName"?:"…","writeLockfile"?:bool}
 *       → {"key":N,"port":N,"token":"…","lockfile":"…"|null}
 *   {"cmd":"prepare","key":N,"bytes":N,"seed":"…"}  → every big openDiff to editor `key` is
 *       answered FILE_SAVED with sourceText(bytes, seed) from now on → {"chars":N}
 *   {"cmd":"burst","key":N,"count":N}  → sends `count` selection_changed to every client of
 *       editor `key` (as a real editor broadcasts) → {"clients":N,"frames":N}
 *   {"cmd":"clients","key":N}          → {"clients":N}
 *   {"cmd":"stop"}                     → stops every editor, exits
 */
import { emit, field, isMain, serveCommands, startupFailed, type Command } from '../peers/cli.ts';
import { LeanEditor } from './lean-editor.ts';
import { sourceText } from './source-text.ts';

export interface HostedEditor {
  key: number;
  port: number;
  token: string;
  lockfile: string | null;
}

export class EditorHost {
  private readonly editors = new Map<number, LeanEditor>();
  private nextKey = 1;

  async start(options: { lockDir: string; folder: string; dialect?: 'pi' | 'claude'; ideName?: string; writeLockfile?: boolean }): Promise<HostedEditor> {
    const editor = await LeanEditor.start(options);
    const key = this.nextKey++;
    this.editors.set(key, editor);
    return { key, port: editor.port, token: editor.token, lockfile: editor.lockfile };
  }

  prepare(key: number, bytes: number, seed: string): { chars: number } {
    const contents = sourceText(bytes, seed);
    this.editor(key).prepare(contents);
    return { chars: contents.length };
  }

  burst(key: number, count: number): { clients: number; frames: number } {
    const editor = this.editor(key);
    return { clients: editor.clientCount, frames: editor.burst(count) };
  }

  clients(key: number): number {
    return this.editor(key).clientCount;
  }

  private editor(key: number): LeanEditor {
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
          ...(c.dialect === 'pi' || c.dialect === 'claude' ? { dialect: c.dialect } : {}),
          ...(typeof c.ideName === 'string' ? { ideName: c.ideName } : {}),
          ...(typeof c.writeLockfile === 'boolean' ? { writeLockfile: c.writeLockfile } : {}),
        }),
      prepare: (c) => host.prepare(count(c, 'key'), count(c, 'bytes'), field(c, 'seed')),
      burst: (c) => host.burst(count(c, 'key'), count(c, 'count')),
      clients: (c) => ({ clients: host.clients(count(c, 'key')) }),
    },
    () => host.close(),
  );
}

if (isMain(import.meta.url)) main().catch(startupFailed);
