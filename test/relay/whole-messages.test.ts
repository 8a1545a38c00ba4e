// A big openDiff reaches an editor as one WebSocket message: pi-ide.nvim and claudecode.nvim close
// a connection that sends a message in fragments (1003 "Unsupported data"), and the diff never
// opened there (seen with the real pi-ide.nvim on Neovim 0.7.2: "Fragmented messages not supported").
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { sourceText } from '../bench/source-text.ts';
import { waitFor } from '../peers/wait.ts';
import { withEditor, type Harness } from './harness.ts';

const MiB = 1024 * 1024;

/** Code-like text with an edit every 400 lines, as agents propose them. */
function edited(text: string): string {
  return text
    .split('\n')
    .map((line, i) => (i % 400 === 7 ? `${line} // edited` : line))
    .join('\n');
}

/** A 1 MiB file in `project` and an edit of it. */
async function bigFile(project: string): Promise<{ file: string; proposal: string }> {
  const file = join(project, 'big.ts');
  const disk = sourceText(MiB, 'original');
  await writeFile(file, disk);
  return { file, proposal: edited(disk) };
}

const bound = (h: Harness): Promise<unknown> =>
  waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.find((s) => s.editorId !== null), { message: 'the agent bound to the editor' });

test('a 1 MiB openDiff from pi reaches pi-ide.nvim whole, and its FILE_SAVED comes back', async (t) => {
  const { h, project, editor } = await withEditor(t, 'whole-pi', {});
  const { file, proposal } = await bigFile(project);
  const pi = await h.pi(project);
  await bound(h);
  const outcome = pi.write(file, proposal);
  const shown = await waitFor(() => [...editor.diffs.values()].find((d) => d.args.new_file_path === file), { message: 'the diff open in the editor' });
  assert.equal(shown.args.new_file_contents, proposal, 'the proposal, byte for byte');
  assert.equal(shown.client.closeCode, null, 'the link is still open');
  editor.decide(shown.tabName, 'saved');
  const result = await outcome;
  assert.equal(result.outcome, 'saved');
  assert.equal(await readFile(file, 'utf8'), proposal);
});

test('a 1 MiB openDiff from Claude Code reaches claudecode.nvim whole', async (t) => {
  const { h, project, editor } = await withEditor(t, 'whole-claude', { dialect: 'claude', claudecode: true });
  const { file, proposal } = await bigFile(project);
  const claude = await h.claude(project);
  await bound(h);
  const outcome = claude.openDiff(file, proposal);
  const shown = await waitFor(() => [...editor.diffs.values()].find((d) => d.args.new_file_path === file), { message: 'the diff open in the editor' });
  assert.equal(shown.args.new_file_contents, proposal);
  assert.equal(shown.client.closeCode, null, 'the link is still open');
  editor.decide(shown.tabName, 'saved');
  const result = await outcome;
  assert.equal(result.outcome, 'accepted');
  assert.equal(result.written, proposal);
  assert.equal(await readFile(file, 'utf8'), proposal);
});
