import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiffSummary, EditorView, SessionView } from '../../src/api/types.ts';
import {
  acceptParams,
  ageText,
  decidedRouteId,
  keepSelection,
  listedIds,
  pendingGroups,
  pendingTotal,
  positionText,
  primaryDecision,
  reviewTarget,
  step,
} from '../../renderer/src/review/inbox-model.ts';

function diff(id: string, sessionId: string, createdAt: number, status: DiffSummary['status'] = 'pending'): DiffSummary {
  return { id, sessionId, editorId: null, tool: 'edit', path: `/w/${id}`, tabName: id, status, createdAt, isNew: false, tooLarge: false, inEditor: false };
}

function session(id: string, cwd: string, editorId: string | null): SessionView {
  return { id, kind: 'pi', dialect: 'pi', clientName: 'pi-ide', pid: 1, cwd, command: null, identity: 'known', connectedAt: 0, lastActiveAt: 0, editorId, reason: 'cwd', automaticEditorId: editorId, pendingDiffs: 0 };
}

const nvim: EditorView = { id: 'e1', ideName: 'Neovim', workspaceFolders: ['/w/api'], port: 1, pid: 1, dialect: 'pi', authenticated: true, alive: true, lockfile: '', focusedAt: null };

test('pending diffs are grouped by session, oldest group and oldest diff first: they have waited longest', () => {
  const groups = pendingGroups({
    sessions: [session('s1', '/w/api', 'e1'), session('s2', '/w/web', null)],
    editors: [nvim],
    diffs: [diff('a', 's1', 10), diff('b', 's2', 20), diff('c', 's1', 30), diff('d', 's2', 5), diff('e', 's1', 40, 'accepted')],
  });
  assert.deepEqual(
    groups.map((g) => [g.title, g.editor, g.agent, g.diffs.map((d) => d.id)]),
    [
      ['pi · web', 'Patchbay review', 'pi-ide', ['d', 'b']],
      ['pi · api', 'Neovim · api', 'pi-ide', ['a', 'c']],
    ],
  );
  assert.deepEqual(listedIds(groups), ['d', 'b', 'a', 'c']);
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

test('Accept sends the edited contents only when the person changed something, the changes taken one by one, and a reason', () => {
  assert.deepEqual(acceptParams('d', 'new', null, null, ''), { id: 'd' });
  assert.deepEqual(acceptParams('d', 'new', 'new', null, '  '), { id: 'd' });
  assert.deepEqual(acceptParams('d', 'new', 'newer', null, ''), { id: 'd', contents: 'newer' });
  assert.deepEqual(acceptParams('d', 'new', '', null, ''), { id: 'd', contents: '' });
  assert.deepEqual(acceptParams('d', 'new', 'ne', [0, 2], ' keep it '), { id: 'd', contents: 'ne', changes: [1, 3], reason: 'keep it' });
});

test('ages read as seconds, minutes, hours', () => {
  assert.equal(ageText(0, 4_000), '4s ago');
  assert.equal(ageText(0, 120_000), '2 min ago');
  assert.equal(ageText(0, 7_200_000), '2 h ago');
  assert.equal(ageText(5_000, 0), '0s ago');
});

test('a decided diff opens from its own route id; anything else selects a pending one', () => {
  assert.deepEqual(reviewTarget(decidedRouteId('d7')), { kind: 'decided', id: 'd7' });
  assert.deepEqual(reviewTarget('d7'), { kind: 'pending', id: 'd7' });
  assert.deepEqual(reviewTarget(null), { kind: 'pending', id: null });
  assert.deepEqual(reviewTarget('history/'), { kind: 'pending', id: 'history/' });
});

test('the primary decision: Accept; once some changes are decided, one enabled action takes the rest as proposed; Reject when nothing is taken', () => {
  const facts = (accepted: number, rejected: number, handEdited = false, sameAsDisk = false) => ({
    total: 3,
    accepted,
    rejected,
    pending: 3 - accepted - rejected,
    handEdited,
    sameAsDisk,
  });
  assert.deepEqual(primaryDecision(null), { kind: 'accept', label: 'Accept', note: null, perChange: false });
  assert.deepEqual(primaryDecision(facts(0, 0)), { kind: 'accept', label: 'Accept', note: null, perChange: false });
  assert.equal(primaryDecision(facts(0, 0, true)).note, 'Accept writes the proposal with your edits.');
  // One change rejected, two undecided: the two go with it.
  assert.deepEqual(primaryDecision(facts(0, 1)), {
    kind: 'accept',
    label: 'Apply 2 of 3 changes',
    note: 'Writes the changes you took; the agent hears which it did not get. The 2 undecided changes are taken as proposed.',
    perChange: true,
  });
  // One accepted, two undecided: that is all of them.
  assert.deepEqual(primaryDecision(facts(1, 0)), { kind: 'accept', label: 'Accept', note: 'The 2 undecided changes are taken as proposed.', perChange: true });
  assert.deepEqual(primaryDecision(facts(2, 1)), {
    kind: 'accept',
    label: 'Apply 2 of 3 changes',
    note: 'Writes the changes you took; the agent hears which it did not get.',
    perChange: true,
  });
  assert.deepEqual(primaryDecision(facts(3, 0)), { kind: 'accept', label: 'Accept', note: null, perChange: true });
  assert.equal(primaryDecision(facts(0, 3)).kind, 'reject');
  assert.equal(primaryDecision(facts(0, 3, false, true)).kind, 'reject');
  assert.equal(primaryDecision(facts(0, 3, true)).kind, 'accept', 'typed text is still something to write');
});

test('the review position reads "Change 2 of 3" with what is decided', () => {
  const summary = { total: 3, current: 1, accepted: 0, rejected: 0, pending: 3, added: 4, removed: 1 };
  assert.equal(positionText(summary), 'Change 2 of 3');
  assert.equal(positionText({ ...summary, accepted: 1, rejected: 1 }), 'Change 2 of 3 · 1 accepted, 1 rejected');
  assert.equal(positionText({ ...summary, total: 0, current: null }), 'No changes');
});
