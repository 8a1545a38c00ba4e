import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiffSummary, EditorView, SessionView } from '../../src/api/types.ts';
import { acceptParams, ageText, keepSelection, listedIds, pendingGroups, pendingTotal, step } from '../../renderer/src/review/inbox-model.ts';

function diff(id: string, sessionId: string, createdAt: number, status: DiffSummary['status'] = 'pending'): DiffSummary {
  return { id, sessionId, editorId: null, tool: 'edit', path: `/w/${id}`, tabName: id, status, createdAt, isNew: false, tooLarge: false, inEditor: false };
}

function session(id: string, cwd: string, editorId: string | null): SessionView {
  return { id, kind: 'pi', dialect: 'pi', clientName: 'pi-ide', pid: 1, cwd, command: null, identity: 'known', connectedAt: 0, lastActiveAt: 0, editorId, reason: 'cwd', pendingDiffs: 0 };
}

const nvim: EditorView = { id: 'e1', ideName: 'Neovim', workspaceFolders: ['/w/api'], port: 1, pid: 1, dialect: 'pi', alive: true, lockfile: '', focusedAt: null };

test('pending diffs are grouped by session, newest group and newest diff first', () => {
  const groups = pendingGroups({
    sessions: [session('s1', '/w/api', 'e1'), session('s2', '/w/web', null)],
    editors: [nvim],
    diffs: [diff('a', 's1', 10), diff('b', 's2', 20), diff('c', 's1', 30), diff('d', 's2', 5), diff('e', 's1', 40, 'accepted')],
  });
  assert.deepEqual(
    groups.map((g) => [g.title, g.editor, g.agent, g.diffs.map((d) => d.id)]),
    [
      ['pi · api', 'Neovim · api', 'pi-ide', ['c', 'a']],
      ['pi · web', 'Patchbay review', 'pi-ide', ['b', 'd']],
    ],
  );
  assert.deepEqual(listedIds(groups), ['c', 'a', 'b', 'd']);
  assert.equal(pendingTotal(groups), 4);
});

test("a diff whose session is gone still shows, under the session's id", () => {
  const [group] = pendingGroups({ sessions: [], editors: [], diffs: [diff('a', 's9', 1)] });
  assert.equal(group?.title, 'session s9 (gone)');
  assert.equal(group?.session, null);
});

test('j and k move through the list and stop at its ends', () => {
  const ids = ['a', 'b', 'c'];
  assert.equal(step(ids, 'a', 1), 'b');
  assert.equal(step(ids, 'c', 1), 'c');
  assert.equal(step(ids, 'a', -1), 'a');
  assert.equal(step(ids, null, 1), 'a');
  assert.equal(step(ids, null, -1), 'c');
  assert.equal(step([], 'a', 1), null);
});

test('after a decision the next diff in the list is selected', () => {
  assert.equal(keepSelection(['a', 'b', 'c'], ['a', 'c'], 'b'), 'c');
  assert.equal(keepSelection(['a', 'b', 'c'], ['a', 'b'], 'c'), 'b', 'at the end, the one before');
  assert.equal(keepSelection(['a', 'b', 'c'], ['x', 'a', 'b', 'c'], 'b'), 'b', 'a new arrival does not move the selection');
  assert.equal(keepSelection(['a'], [], 'a'), null);
  assert.equal(keepSelection([], ['a', 'b'], null), 'a');
});

test('Accept sends the edited contents only when the person changed something', () => {
  assert.deepEqual(acceptParams('d', 'new', null), { id: 'd' });
  assert.deepEqual(acceptParams('d', 'new', 'new'), { id: 'd' });
  assert.deepEqual(acceptParams('d', 'new', 'newer'), { id: 'd', contents: 'newer' });
  assert.deepEqual(acceptParams('d', 'new', ''), { id: 'd', contents: '' });
});

test('ages read as seconds, minutes, hours', () => {
  assert.equal(ageText(0, 4_000), '4s ago');
  assert.equal(ageText(0, 120_000), '2 min ago');
  assert.equal(ageText(0, 7_200_000), '2 h ago');
  assert.equal(ageText(5_000, 0), '0s ago');
});
