import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DiffSummary } from '../../src/api/types.ts';
import { pendingDiffFor, toolChange } from '../../renderer/src/hosted/tool-change.ts';

test('an edit call shows each replacement as removed and added lines, unchanged ones kept', () => {
  const change = toolChange('edit', {
    path: 'src/a.ts',
    edits: [
      { oldText: 'const a = 1;\nconst b = 2;', newText: 'const a = 1;\nconst b = 3;' },
      { oldText: 'x', newText: 'y\nz' },
    ],
  });
  assert.deepEqual(change, {
    kind: 'edit',
    path: 'src/a.ts',
    blocks: [
      [
        { kind: 'same', text: 'const a = 1;' },
        { kind: 'del', text: 'const b = 2;' },
        { kind: 'add', text: 'const b = 3;' },
      ],
      [
        { kind: 'del', text: 'x' },
        { kind: 'add', text: 'y' },
        { kind: 'add', text: 'z' },
      ],
    ],
  });
});

test('an edit in pi’s older shape (oldText/newText at the top) reads the same', () => {
  assert.deepEqual(toolChange('edit', { path: 'a', oldText: 'old', newText: 'new' })?.blocks, [
    [
      { kind: 'del', text: 'old' },
      { kind: 'add', text: 'new' },
    ],
  ]);
});

test('a write call shows the new contents as added lines; other tools and shapes show no change', () => {
  assert.deepEqual(toolChange('write', { path: 'n.txt', content: 'one\ntwo\n' }), {
    kind: 'write',
    path: 'n.txt',
    blocks: [
      [
        { kind: 'add', text: 'one' },
        { kind: 'add', text: 'two' },
      ],
    ],
  });
  assert.equal(toolChange('bash', { command: 'ls' }), null);
  assert.equal(toolChange('edit', { path: 'a', edits: [{ oldText: 1 }] }), null);
  assert.equal(toolChange('write', { path: 'a' }), null);
});

test('a tool call finds its pending diff by the tab name pi-ide gives it, in its own session only', () => {
  const diff = (id: string, sessionId: string, tabName: string, status: DiffSummary['status'] = 'pending'): DiffSummary => ({
    id, sessionId, editorId: null, tool: 'write', path: '/p/a', tabName, status, createdAt: 0, isNew: false, tooLarge: false, inEditor: false,
  });
  const diffs = [diff('other', 's2', 'pi-write:c1'), diff('old', 's1', 'pi-write:c1', 'accepted'), diff('mine', 's1', 'pi-write:c1'), diff('edit', 's1', 'pi-edit:c2')];
  assert.equal(pendingDiffFor(diffs, 's1', { name: 'write', toolCallId: 'c1' })?.id, 'mine');
  assert.equal(pendingDiffFor(diffs, 's1', { name: 'edit', toolCallId: 'c2' })?.id, 'edit');
  assert.equal(pendingDiffFor(diffs, 's1', { name: 'edit', toolCallId: 'c1' }), null);
  assert.equal(pendingDiffFor(diffs, null, { name: 'write', toolCallId: 'c1' }), null, 'no door session: pi-ide is not connected');
  assert.equal(pendingDiffFor(diffs, 's1', { name: 'bash', toolCallId: 'c1' }), null);
});
