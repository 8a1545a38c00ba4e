import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DecisionRecord, EditorView } from '../../src/api/types.ts';
import { decisionNotice, historyDetail, offeredTo, shownPath } from '../../renderer/src/review/decision-text.ts';

const nvim: EditorView = { id: 'e1', ideName: 'Neovim', workspaceFolders: ['/w/api'], port: 1, pid: 1, dialect: 'pi', authenticated: true, alive: true, lockfile: '', focusedAt: null };
const ctx = { sessions: [{ id: 's1', cwd: '/w/api' }], editors: [nvim] };

function record(more: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    status: more.outcome ?? 'accepted',
    id: 'd1',
    sessionId: 's1',
    path: '/w/api/src/a.ts',
    outcome: 'accepted',
    by: 'patchbay',
    at: 0,
    edited: false,
    tool: 'edit',
    editorId: 'e1',
    agent: 'pi-ide',
    ...more,
  };
}

test('the notice after a decision says what happened to the file and who writes it', () => {
  assert.equal(decisionNotice(record(), ctx), 'Accepted src/a.ts: written by pi.');
  const partial = { total: 3, accepted: [1, 3], rejected: [2] };
  assert.equal(
    decisionNotice(record({ changes: partial }), ctx),
    'Accepted src/a.ts (2 of 3 changes): written by pi. pi was told which changes it did not get.',
  );
  assert.equal(decisionNotice(record({ edited: true }), ctx), 'Accepted src/a.ts (edited by you): written by pi.');
  assert.equal(decisionNotice(record({ edited: true, by: 'editor' }), ctx), 'Accepted src/a.ts (edited in the editor) in Neovim · api: written by pi.');
  assert.equal(
    decisionNotice(record({ outcome: 'rejected', reason: 'wrong file' }), ctx),
    'Rejected src/a.ts: pi was told no; the file is unchanged. Your reason went with it.',
  );
  assert.equal(decisionNotice(record({ by: 'editor' }), ctx), 'Accepted src/a.ts in Neovim · api: written by pi.');
  assert.equal(decisionNotice(record({ outcome: 'rejected' }), ctx), 'Rejected src/a.ts: pi was told no; the file is unchanged.');
  assert.equal(
    decisionNotice(record({ outcome: 'rejected', by: 'agent', agent: 'claude-code' }), ctx),
    'Replaced src/a.ts: Claude Code sent a newer proposal; this one was not written.',
  );
  assert.equal(decisionNotice(record({ outcome: 'withdrawn', by: 'agent' }), ctx), 'Withdrawn src/a.ts: pi went away before a decision; nothing was written.');
  assert.equal(decisionNotice(record({ outcome: 'rejected', by: 'shutdown' }), ctx), 'Rejected src/a.ts as Patchbay stopped: pi was told no; the file is unchanged.');
});

test('paths show relative to the session folder, else by their name', () => {
  assert.equal(shownPath('/w/api/src/a.ts', '/w/api'), 'src/a.ts');
  assert.equal(shownPath('/w/api/src/a.ts', '/w/api/'), 'src/a.ts');
  assert.equal(shownPath('/w/apiary/a.ts', '/w/api'), 'a.ts', 'a folder whose name only starts the same is not the session’s');
  assert.equal(decisionNotice(record({ sessionId: 'gone' }), ctx), 'Accepted a.ts: written by pi.');
});

test('history lines say where a decision was made and what was written: some changes, or typing', () => {
  assert.equal(historyDetail(record({ changes: { total: 3, accepted: [1, 3], rejected: [2] } }), ctx), 'in Patchbay, 2 of 3 changes');
  assert.equal(historyDetail(record({ edited: true }), ctx), 'in Patchbay, edited by you');
  assert.equal(historyDetail(record(), ctx), 'in Patchbay');
  assert.equal(historyDetail(record({ by: 'editor', editorId: 'e9' }), ctx), 'in editor e9 (not running)');
  assert.equal(offeredTo(record({ editorId: null }), ctx), 'Patchbay only');
  assert.equal(offeredTo(record(), ctx), 'Neovim · api');
});
