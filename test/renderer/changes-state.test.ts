// Per-change review as editor state: what the proposal editor holds (and Accept sends)
// after each per-change choice and edit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EditorState } from '@codemirror/state';
import type { TransactionSpec } from '@codemirror/state';
import {
  buildChanges,
  choicesText,
  decideChange,
  getReviewChanges,
  lineSeparatorOf,
  reviewChanges,
  startOver,
  stepChange,
  summarize,
  toText,
} from '../../renderer/src/review/changes-state.ts';

const DISK = 'import json\n\ndef load():\n    return 1\n\ndef save():\n    pass\n\ndef main():\n    load()\n';
// Three changes: line 1 replaced, one line inserted after `def save():`, the last line changed.
const PROPOSAL = 'import json\nimport os\n\ndef load():\n    return 1\n\ndef save():\n    os.sync()\n    pass\n\ndef main():\n    save()\n';

function editor(disk = DISK, proposal = PROPOSAL): { state: EditorState; apply(spec: TransactionSpec | null): void; text(): string } {
  const separator = lineSeparatorOf(proposal);
  const value = buildChanges(toText(disk, separator), toText(proposal, separator));
  const extensions = [reviewChanges(value), separator === undefined ? [] : EditorState.lineSeparator.of(separator)];
  const box = {
    state: EditorState.create({ doc: proposal, extensions }),
    apply(spec: TransactionSpec | null) {
      assert.ok(spec !== null, 'the command applies');
      box.state = box.state.update(spec).state;
    },
    text: () => box.state.sliceDoc(),
  };
  return box;
}

test('a proposal is cut into its changes, each with the lines it adds and removes', () => {
  const e = editor();
  const value = getReviewChanges(e.state)!;
  assert.equal(value.changes.length, 3);
  assert.deepEqual(
    value.changes.map((c) => [c.added, c.removed, c.decision]),
    [
      [1, 0, 'pending'],
      [1, 0, 'pending'],
      [1, 1, 'pending'],
    ],
  );
  assert.deepEqual(summarize(value), { total: 3, current: 0, accepted: 0, rejected: 0, pending: 3, added: 3, removed: 1 });
});

test('rejecting the middle change leaves exactly changes 1 and 3', () => {
  const e = editor();
  e.apply(decideChange(e.state, 1, 'rejected'));
  assert.equal(e.text(), 'import json\nimport os\n\ndef load():\n    return 1\n\ndef save():\n    pass\n\ndef main():\n    save()\n');
  assert.equal(e.text(), choicesText(getReviewChanges(e.state)!).toString());
  const summary = summarize(getReviewChanges(e.state));
  assert.equal(summary.rejected, 1);
  assert.equal(summary.current, 2, 'the review moves on to the next change still to decide');
});

test('a rejected change comes back on its own, with the others untouched', () => {
  const e = editor();
  e.apply(decideChange(e.state, 0, 'rejected'));
  e.apply(decideChange(e.state, 2, 'rejected'));
  assert.equal(e.text(), 'import json\n\ndef load():\n    return 1\n\ndef save():\n    os.sync()\n    pass\n\ndef main():\n    load()\n');
  e.apply(decideChange(e.state, 0, 'accepted'));
  assert.equal(e.text(), 'import json\nimport os\n\ndef load():\n    return 1\n\ndef save():\n    os.sync()\n    pass\n\ndef main():\n    load()\n');
  e.apply(decideChange(e.state, 2, 'accepted'));
  assert.equal(e.text(), PROPOSAL);
  assert.equal(decideChange(e.state, 2, 'accepted'), null, 'deciding the same again does nothing');
});

test("the person's own edits survive per-change choices around them", () => {
  const e = editor();
  // Type into change 3 (the last line), then reject and restore change 1 above it.
  const end = e.state.doc.length - 1;
  e.apply({ changes: { from: end, insert: '  # checked' }, selection: { anchor: end + 11 } });
  assert.equal(summarize(getReviewChanges(e.state)).current, 2, 'typing in a change makes it current');
  e.apply(decideChange(e.state, 0, 'rejected'));
  e.apply(decideChange(e.state, 0, 'accepted'));
  assert.equal(e.text(), PROPOSAL.replace('save()\n', 'save()  # checked\n'));
  assert.notEqual(e.text(), choicesText(getReviewChanges(e.state)!).toString(), 'hand edits show against the choices alone');
  // Rejecting the edited change puts the disk text there (the edit inside it goes with it).
  e.apply(decideChange(e.state, 2, 'rejected'));
  assert.equal(e.text(), 'import json\nimport os\n\ndef load():\n    return 1\n\ndef save():\n    os.sync()\n    pass\n\ndef main():\n    load()\n');
});

test('deletions and a last line without a line break swap back exactly', () => {
  const disk = 'a\nb\nc\nx\ny\nd';
  const proposal = 'a\nc\nx\ny\nD';
  const e = editor(disk, proposal);
  assert.equal(getReviewChanges(e.state)!.changes.length, 2);
  e.apply(decideChange(e.state, 0, 'rejected'));
  assert.equal(e.text(), 'a\nb\nc\nx\ny\nD');
  e.apply(decideChange(e.state, 1, 'rejected'));
  assert.equal(e.text(), disk);
  e.apply(decideChange(e.state, 0, 'accepted'));
  e.apply(decideChange(e.state, 1, 'accepted'));
  assert.equal(e.text(), proposal);
});

test('a new file is one change; rejecting it leaves nothing', () => {
  const e = editor('', 'export const fresh = true;\n');
  assert.equal(summarize(getReviewChanges(e.state)).total, 1);
  e.apply(decideChange(e.state, 0, 'rejected'));
  assert.equal(e.text(), '');
});

test('Windows line endings are kept in what Accept sends', () => {
  const e = editor('one\r\ntwo\r\nthree\r\n', 'one\r\n2\r\nthree\r\nfour\r\n');
  assert.equal(e.text(), 'one\r\n2\r\nthree\r\nfour\r\n');
  e.apply(decideChange(e.state, 0, 'rejected'));
  assert.equal(e.text(), 'one\r\ntwo\r\nthree\r\nfour\r\n');
});

test('n and p step through the changes and wrap around; start over undoes every choice and edit', () => {
  const e = editor();
  e.apply(stepChange(e.state, 1));
  assert.equal(summarize(getReviewChanges(e.state)).current, 1);
  assert.equal(e.state.selection.main.head, getReviewChanges(e.state)!.changes[1]!.from, 'the cursor goes to the change');
  e.apply(stepChange(e.state, 1));
  e.apply(stepChange(e.state, 1));
  assert.equal(summarize(getReviewChanges(e.state)).current, 0);
  e.apply(stepChange(e.state, -1));
  assert.equal(summarize(getReviewChanges(e.state)).current, 2);

  e.apply(decideChange(e.state, 1, 'rejected'));
  e.apply({ changes: { from: 0, insert: '# hi\n' } });
  e.apply(startOver(e.state));
  assert.equal(e.text(), PROPOSAL);
  assert.deepEqual(summarize(getReviewChanges(e.state)), { total: 3, current: 0, accepted: 0, rejected: 0, pending: 3, added: 3, removed: 1 });
});
