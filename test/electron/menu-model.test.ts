import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiffSummary, EditorView, SessionView, Snapshot } from '../../src/api/types.ts';
import { menuModel, statusLine, trayBadge } from '../../electron/main/menu-model.ts';
import type { MenuItemModel } from '../../electron/main/menu-model.ts';

function editor(id: string, ideName: string, folders: string[], alive = true): EditorView {
  return { id, ideName, workspaceFolders: folders, port: 1000, pid: 10, dialect: 'pi', authenticated: true, alive, lockfile: `/l/${id}.lock`, focusedAt: null };
}

/** `automaticEditorId`: what the hub's rules pick for it with no choice (default: where it is). */
function session(id: string, cwd: string | null, editorId: string | null, pendingDiffs = 0, automaticEditorId = editorId): SessionView {
  return {
    id,
    kind: 'pi',
    dialect: 'pi',
    clientName: 'pi-ide',
    pid: 42,
    cwd,
    command: 'pi',
    identity: 'known',
    connectedAt: 0,
    lastActiveAt: 0,
    editorId,
    reason: editorId === null ? 'none' : 'cwd',
    automaticEditorId,
    pendingDiffs,
  };
}

function diff(id: string, sessionId: string, status: DiffSummary['status'] = 'pending'): DiffSummary {
  return { id, sessionId, editorId: null, tool: 'edit', path: `/p/${id}.ts`, tabName: id, status, createdAt: 0, isNew: false, tooLarge: false, inEditor: false };
}

function snapshot(parts: Partial<Snapshot>): Snapshot {
  return {
    version: '0.1.0',
    pid: 1,
    corePid: 2,
    core: { reason: 'start', startedAt: 0, restarts: 0, daemonSince: 0 },
    notices: [],
    notReconnected: [],
    paused: false,
    door: { port: 1, lockfiles: [], problems: [] },
    editors: [],
    invalidLockfiles: [],
    otherLockfiles: [],
    sessions: [],
    idleAgents: [],
    diffs: [],
    history: [],
    settings: {} as Snapshot['settings'],
    hostedPi: {} as Snapshot['hostedPi'],
    hosted: [],
    remotes: [],
    warnings: [],
    ...parts,
  };
}

const labels = (items: MenuItemModel[]): string[] => items.map((i) => (i.kind === 'separator' ? '—' : i.label));

test('the status line counts live editors, sessions and pending diffs', () => {
  const cases: { snap: Snapshot; line: string }[] = [
    { snap: snapshot({}), line: '0 editors · 0 sessions · 0 pending' },
    {
      snap: snapshot({
        editors: [editor('a', 'Neovim', ['/a']), editor('b', 'VS Code', ['/b'], false)],
        sessions: [session('s1', '/a', 'a')],
        diffs: [diff('d1', 's1'), diff('d2', 's1', 'accepted')],
      }),
      line: '1 editor · 1 session · 1 pending',
    },
    { snap: snapshot({ paused: true, sessions: [session('s1', null, null), session('s2', null, null)] }), line: '0 editors · 2 sessions · 0 pending · routing paused' },
  ];
  for (const { snap, line } of cases) {
    assert.equal(statusLine(snap), line);
    assert.deepEqual(menuModel(snap)[0], { kind: 'text', label: line });
  }
});

test('each session shows its editor and rebinds to matching editors first, others marked as not its folder, Patchbay last', () => {
  const snap = snapshot({
    editors: [
      editor('other', 'Alpha', ['/elsewhere']),
      editor('outer', 'Neovim', ['/work']),
      editor('inner', 'VS Code', ['/work/app']),
      editor('dead', 'Zed', ['/work/app'], false),
    ],
    sessions: [session('s1', '/work/app/src', 'outer', 2, 'inner')],
  });
  const sub = menuModel(snap).find((i) => i.kind === 'submenu');
  assert.ok(sub && sub.kind === 'submenu');
  assert.equal(sub.label, 'pi · src → Neovim · work (2 pending)');
  assert.deepEqual(
    sub.items.map((i) => (i.kind === 'choice' ? [i.label, i.checked] : i.kind)),
    [
      ['Automatic (VS Code · app)', true],
      ['VS Code · app', false],
      ['Neovim · work', false],
      ['Alpha · elsewhere (not this folder)', false],
      ['Patchbay review', false],
    ],
  );
  assert.deepEqual(sub.items[0]?.kind === 'choice' && sub.items[0].action, { kind: 'unpin', sessionId: 's1' });
  const last = sub.items.at(-1);
  assert.ok(last?.kind === 'choice');
  assert.deepEqual(last.action, { kind: 'bind', sessionId: 's1', editorId: null });
});

test('a session with no known folder marks no editor as outside it', () => {
  const snap = snapshot({ editors: [editor('a', 'Neovim', ['/a'])], sessions: [session('s1', null, 'a', 0, null)] });
  const sub = menuModel(snap).find((i) => i.kind === 'submenu');
  assert.ok(sub?.kind === 'submenu');
  assert.deepEqual(
    sub.items.map((i) => (i.kind === 'choice' ? i.label : i.kind)),
    ['Automatic (Patchbay review)', 'Neovim · a', 'Patchbay review'],
  );
});

test('a session the person sent to Patchbay has "Patchbay review" checked, not "Automatic"', () => {
  const snap = snapshot({ editors: [editor('a', 'Neovim', ['/a'])], sessions: [{ ...session('s1', '/x', null), reason: 'manual' }] });
  const sub = menuModel(snap).find((i) => i.kind === 'submenu');
  assert.ok(sub?.kind === 'submenu');
  assert.deepEqual(
    sub.items.filter((i) => i.kind === 'choice' && i.checked).map((i) => (i.kind === 'separator' ? '' : i.label)),
    ['Patchbay review'],
  );
});

test('the menu offers review, settings, pause, Restart and Quit, in that order', () => {
  const items = labels(menuModel(snapshot({ diffs: [diff('d1', 's1'), diff('d2', 's1')] })));
  assert.deepEqual(items, [
    '0 editors · 0 sessions · 2 pending',
    '—',
    'No agent sessions',
    '—',
    'Review pending edits (2)…',
    'Sessions and editors…',
    'Settings…',
    '—',
    'Pause routing',
    '—',
    'Restart Patchbay (agents stay connected)',
    'Quit Patchbay',
  ]);
  const restart = menuModel(snapshot({})).at(-2);
  assert.deepEqual(restart, { kind: 'action', label: 'Restart Patchbay (agents stay connected)', action: { kind: 'restart' } });
  assert.ok(labels(menuModel(snapshot({ paused: true }))).includes('Resume routing'));
  const quit = menuModel(snapshot({})).at(-1);
  assert.deepEqual(quit, { kind: 'action', label: 'Quit Patchbay', action: { kind: 'quit' } });
});

test('the tray badge counts only pending diffs', () => {
  assert.deepEqual(trayBadge(snapshot({ diffs: [diff('d1', 's'), diff('d2', 's', 'rejected'), diff('d3', 's')] })), {
    pending: 2,
    tooltip: 'Patchbay — 2 edits waiting for review',
  });
  assert.equal(trayBadge(snapshot({})).pending, 0);
  assert.equal(trayBadge(snapshot({})).tooltip, 'Patchbay — 0 editors · 0 sessions · 0 pending');
});
