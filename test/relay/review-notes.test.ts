// The real pi-ide shows the model only its own tool's result for an edit; what the person
// decided reaches the model through the Warnings pi-ide reads before its next call. Once.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { resultTexts, textResult } from '../../src/protocol/mcp.ts';
import { addReviewNotes } from '../../src/relay/review-notes.ts';
import { waitFor } from '../peers/wait.ts';
import { DISK, PROPOSAL, withChanges } from '../ui/review-fixtures.ts';
import { startHarness } from './harness.ts';

/** What pi-ide would put before the model: the Warning diagnostics, as `uri: message`. */
function warnings(result: unknown): string[] {
  const map = JSON.parse(resultTexts(result)?.[0] ?? '{}') as Record<string, { severity: string; message: string }[]>;
  return Object.entries(map).flatMap(([uri, list]) => list.filter((d) => d.severity === 'Warning').map((d) => `${uri}: ${d.message}`));
}

test("after a partial accept, pi's next diagnostics carry which change was rejected and the reason, once; the editor's own stay", async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const folder = await h.folder('inventory');
  const editor = await h.editor({ workspaceFolders: [folder] });
  await h.editors(1);
  editor.setDiagnostics({ [`file://${folder}/other.ts`]: [{ severity: 'Error', message: 'from the editor', range: { start: { line: 1, character: 0 }, end: { line: 1, character: 2 } } }] } as never);
  const file = join(folder, 'inventory.ts');
  await writeFile(file, DISK);
  const pi = await h.pi(folder);
  const writing = pi.write(file, PROPOSAL);
  const [pending] = await waitFor(async () => {
    const diffs = (await h.hub.call('snapshot', undefined)).diffs;
    return diffs.length === 1 && diffs;
  });
  await h.hub.call('diffs.accept', { id: pending!.id, changes: [1, 3], reason: 'keep the loop' });
  assert.equal((await writing).outcome, 'saved');
  assert.equal(await readFile(file, 'utf8'), withChanges(1, 3));

  const first = await pi.turn();
  assert.deepEqual(warnings(first), [
    `file://${file}: Patchbay: accepted 2 of 3 changes of your edit to ${file}; change 2 (line 15 of your proposal) rejected: the file keeps its original lines there. The file now differs from your proposal: read ${file} again before you change it further. Their reason: "keep the loop".`,
  ]);
  assert.match(resultTexts(first)![0]!, /from the editor/, "the editor's diagnostics are still there");
  const second = await pi.turn();
  assert.deepEqual(warnings(second), [], 'told once');
  assert.match(resultTexts(second)![0]!, /from the editor/);
});

test('a plain accept adds nothing to the diagnostics', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const folder = await h.folder('plain');
  const file = join(folder, 'a.txt');
  const pi = await h.pi(folder);
  const writing = pi.write(file, 'new\n');
  const [pending] = await waitFor(async () => {
    const diffs = (await h.hub.call('snapshot', undefined)).diffs;
    return diffs.length === 1 && diffs;
  });
  await h.hub.call('diffs.accept', { id: pending!.id });
  await writing;
  assert.deepEqual(resultTexts(await pi.turn()), ['{}']);
});

test('notes go into either dialect’s shape, and a result that is not diagnostics is left alone', () => {
  const note = { path: '/w/a.ts', message: 'Patchbay: the person rejected your edit of /w/a.ts; the file is unchanged. Their reason: "no".' };
  const claude = addReviewNotes(textResult('[{"uri":"file:///w/b.ts","diagnostics":[]}]'), [note], 'claude');
  assert.deepEqual(JSON.parse(resultTexts(claude)![0]!), [
    { uri: 'file:///w/a.ts', diagnostics: [{ severity: 'Warning', source: 'Patchbay review', message: note.message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }] },
    { uri: 'file:///w/b.ts', diagnostics: [] },
  ]);
  const odd = textResult('not json');
  assert.equal(addReviewNotes(odd, [note], 'pi'), odd);
  const none = textResult('{}');
  assert.equal(addReviewNotes(none, [], 'pi'), none);
});
