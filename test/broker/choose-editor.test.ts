import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  chooseEditor,
  editorsForFolder,
  type CandidateEditor,
  type Choice,
  type SessionFacts,
} from '../../src/broker/choose-editor.ts';
import { containingDepth } from '../../src/broker/folders.ts';

const editor = (id: string, folders: string[], focusedAt: number | null = null): CandidateEditor => ({
  id,
  workspaceFolders: folders,
  focusedAt,
});

const withWorktrees = (e: CandidateEditor, worktrees: string[]): CandidateEditor => ({ ...e, worktrees });

const nvim = editor('nvim', ['/home/me/app']);
const code = editor('code', ['/home/me/web']);
const nested = editor('nested', ['/home/me/app/packages/core']);
const twinA = editor('twin-a', ['/home/me/app']);
const twinB = editor('twin-b', ['/home/me/app']);

const facts = (over: Partial<SessionFacts>): SessionFacts => ({ cwd: '/home/me/app', manual: undefined, memory: undefined, ...over });

interface Case {
  name: string;
  session: Partial<SessionFacts>;
  live: CandidateEditor[];
  want: Choice;
}

const cases: Case[] = [
  // (1) the person's explicit choice
  {
    name: 'a manual choice of an editor wins over the folder match',
    session: { manual: 'code' },
    live: [nvim, code],
    want: { editorId: 'code', reason: 'manual' },
  },
  {
    name: 'a manual choice of Patchbay (null) wins even when an editor contains cwd',
    session: { manual: null },
    live: [nvim],
    want: { editorId: null, reason: 'manual' },
  },
  {
    name: 'a manual choice wins over sticky memory',
    session: { manual: 'code', memory: 'nvim' },
    live: [nvim, code],
    want: { editorId: 'code', reason: 'manual' },
  },
  {
    name: 'a manual choice of Patchbay wins over memory of an editor',
    session: { manual: null, memory: 'nvim' },
    live: [nvim],
    want: { editorId: null, reason: 'manual' },
  },
  {
    name: 'a manually chosen editor that is not live falls through to the folder match',
    session: { manual: 'code' },
    live: [nvim],
    want: { editorId: 'nvim', reason: 'cwd' },
  },
  {
    name: 'a manually chosen editor that is not live, and no folder match, leaves Patchbay reviewing',
    session: { manual: 'code', cwd: '/elsewhere' },
    live: [nvim],
    want: { editorId: null, reason: 'none' },
  },
  // (2) sticky memory
  {
    name: 'memory of an editor binds to it even when cwd matches another',
    session: { memory: 'code' },
    live: [nvim, code],
    want: { editorId: 'code', reason: 'sticky' },
  },
  {
    name: 'memory of an editor binds even when the session has no cwd',
    session: { memory: 'code', cwd: null },
    live: [code],
    want: { editorId: 'code', reason: 'sticky' },
  },
  {
    name: 'memory of Patchbay (null) keeps Patchbay reviewing although an editor contains cwd',
    session: { memory: null },
    live: [nvim],
    want: { editorId: null, reason: 'sticky' },
  },
  {
    name: 'memory naming an editor that is not live falls through to the folder match',
    session: { memory: 'code' },
    live: [nvim],
    want: { editorId: 'nvim', reason: 'cwd' },
  },
  {
    name: 'memory naming a dead editor with nothing else matching leaves Patchbay reviewing',
    session: { memory: 'code' },
    live: [],
    want: { editorId: null, reason: 'none' },
  },
  // (3) the editor whose terminal the agent runs in
  {
    name: 'an agent in an editor’s terminal goes to that editor, though another containing cwd was focused later',
    session: { terminalOf: ['twin-b'] },
    live: [editor('twin-a', ['/home/me/app'], 200), editor('twin-b', ['/home/me/app'], 100)],
    want: { editorId: 'twin-b', reason: 'terminal' },
  },
  {
    name: 'an agent in an editor’s terminal goes to it though a deeper folder of another editor contains cwd',
    session: { cwd: '/home/me/app/packages/core', terminalOf: ['nvim'] },
    live: [nvim, nested],
    want: { editorId: 'nvim', reason: 'terminal' },
  },
  {
    name: 'among the windows of the app whose terminal runs the agent, the deepest folder containing cwd wins',
    session: { cwd: '/home/me/app/packages/core', terminalOf: ['nvim', 'nested', 'code'] },
    live: [nvim, nested, code],
    want: { editorId: 'nested', reason: 'terminal' },
  },
  {
    name: 'windows of that app at the same depth: the one focused last',
    session: { terminalOf: ['twin-a', 'twin-b'] },
    live: [editor('twin-a', ['/home/me/app'], 300), editor('twin-b', ['/home/me/app'], 100), editor('other', ['/home/me/app'], 999)],
    want: { editorId: 'twin-a', reason: 'terminal' },
  },
  {
    name: 'an editor whose terminal runs the agent but whose folders do not contain cwd: the folder rules decide',
    session: { terminalOf: ['code'] },
    live: [nvim, code],
    want: { editorId: 'nvim', reason: 'cwd' },
  },
  {
    name: 'memory wins over the terminal',
    session: { memory: 'twin-a', terminalOf: ['twin-b'] },
    live: [twinA, twinB],
    want: { editorId: 'twin-a', reason: 'sticky' },
  },
  {
    name: 'a terminal editor that is not live counts for nothing',
    session: { terminalOf: ['gone'] },
    live: [nvim],
    want: { editorId: 'nvim', reason: 'cwd' },
  },
  // (4) folders
  {
    name: 'exactly one editor containing cwd is chosen by folder',
    session: {},
    live: [nvim, code],
    want: { editorId: 'nvim', reason: 'cwd' },
  },
  {
    name: 'a cwd deep inside the folder still matches',
    session: { cwd: '/home/me/web/src/components' },
    live: [nvim, code],
    want: { editorId: 'code', reason: 'cwd' },
  },
  {
    name: 'nested folders: the deepest one wins',
    session: { cwd: '/home/me/app/packages/core/src' },
    live: [nvim, nested],
    want: { editorId: 'nested', reason: 'cwd' },
  },
  {
    name: 'nested folders: the deepest one wins regardless of order and focus',
    session: { cwd: '/home/me/app/packages/core' },
    live: [nested, editor('nvim', ['/home/me/app'], 999)],
    want: { editorId: 'nested', reason: 'cwd' },
  },
  {
    name: 'nested folders: outside the inner folder the outer one is chosen',
    session: { cwd: '/home/me/app/packages/cli' },
    live: [nvim, nested],
    want: { editorId: 'nvim', reason: 'cwd' },
  },
  {
    name: 'an editor with several folders matches through any of them',
    session: { cwd: '/srv/other/x' },
    live: [editor('multi', ['/home/me/app', '/srv/other']), code],
    want: { editorId: 'multi', reason: 'cwd' },
  },
  // (5) ties: last focused
  {
    name: 'several editors at the same depth: the one focused last wins',
    session: {},
    live: [editor('twin-a', ['/home/me/app'], 100), editor('twin-b', ['/home/me/app'], 200)],
    want: { editorId: 'twin-b', reason: 'focus' },
  },
  {
    name: 'several editors at the same depth: a focused one beats one never focused',
    session: {},
    live: [editor('twin-a', ['/home/me/app'], null), editor('twin-b', ['/home/me/app'], 5)],
    want: { editorId: 'twin-b', reason: 'focus' },
  },
  {
    name: 'several editors at the same depth, none focused: the choice is by id, whatever the order',
    session: {},
    live: [twinB, twinA],
    want: { editorId: 'twin-a', reason: 'focus' },
  },
  {
    name: 'a tie among the deepest ignores a shallower editor focused more recently',
    session: { cwd: '/home/me/app/packages/core' },
    live: [editor('outer', ['/home/me/app'], 1000), editor('in-1', ['/home/me/app/packages/core'], 1), editor('in-2', ['/home/me/app/packages/core'], 2)],
    want: { editorId: 'in-2', reason: 'focus' },
  },
  // (6) none
  {
    name: 'no editor containing cwd: Patchbay reviews',
    session: { cwd: '/tmp/scratch' },
    live: [nvim, code],
    want: { editorId: null, reason: 'none' },
  },
  {
    name: 'no editors at all: Patchbay reviews',
    session: {},
    live: [],
    want: { editorId: null, reason: 'none' },
  },
  {
    name: 'an unknown cwd: Patchbay reviews',
    session: { cwd: null },
    live: [nvim],
    want: { editorId: null, reason: 'none' },
  },
  {
    name: 'a folder that only shares a name prefix does not contain cwd',
    session: { cwd: '/home/me/application' },
    live: [nvim],
    want: { editorId: null, reason: 'none' },
  },
  // (6) another worktree of a repository an editor has open
  {
    name: 'an agent in a linked worktree of the repository an editor has open is bound to it',
    session: { cwd: '/home/me/feature-x/src' },
    live: [withWorktrees(nvim, ['/home/me/feature-x', '/home/me/hotfix']), code],
    want: { editorId: 'nvim', reason: 'worktree' },
  },
  {
    name: 'an editor containing cwd wins over one whose worktree contains it',
    session: { cwd: '/home/me/web/src' },
    live: [withWorktrees(nvim, ['/home/me/web']), code],
    want: { editorId: 'code', reason: 'cwd' },
  },
  {
    name: 'the deepest worktree wins, and among editors of one repository the last focused',
    session: { cwd: '/home/me/wt/inner/x' },
    live: [withWorktrees(editor('a', ['/a'], 5), ['/home/me/wt']), withWorktrees(editor('b', ['/b'], 1), ['/home/me/wt/inner']), withWorktrees(editor('c', ['/c'], 9), ['/home/me/wt/inner'])],
    want: { editorId: 'c', reason: 'worktree' },
  },
  {
    name: 'a remembered choice wins over a worktree match',
    session: { cwd: '/home/me/feature-x', memory: null },
    live: [withWorktrees(nvim, ['/home/me/feature-x'])],
    want: { editorId: null, reason: 'sticky' },
  },
  {
    name: 'a folder beside a worktree is in none',
    session: { cwd: '/home/me/feature-xy' },
    live: [withWorktrees(nvim, ['/home/me/feature-x'])],
    want: { editorId: null, reason: 'none' },
  },
];

describe('chooseEditor', () => {
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(chooseEditor(facts(c.session), c.live), c.want);
    });
  }

  test('a manually chosen editor that goes away and comes back gets the session back', () => {
    const session = facts({ manual: 'code', cwd: '/home/me/app' });
    assert.deepEqual(chooseEditor(session, [nvim, code]), { editorId: 'code', reason: 'manual' });
    assert.deepEqual(chooseEditor(session, [nvim]), { editorId: 'nvim', reason: 'cwd' });
    assert.deepEqual(chooseEditor(session, [nvim, code]), { editorId: 'code', reason: 'manual' });
  });

  test('a remembered editor that restarts gets the session back', () => {
    const session = facts({ memory: 'code', cwd: '/home/me/app' });
    assert.deepEqual(chooseEditor(session, []), { editorId: null, reason: 'none' });
    assert.deepEqual(chooseEditor(session, [code, nvim]), { editorId: 'code', reason: 'sticky' });
  });

  test('the choice does not depend on the order editors are listed in', () => {
    const live = [editor('a', ['/w'], 3), editor('b', ['/w'], 3), editor('c', ['/w/x']), editor('d', ['/w'], 1)];
    const reversed = [...live].reverse();
    for (const cwd of ['/w', '/w/x/y', '/w/z']) {
      const session = facts({ cwd });
      assert.deepEqual(chooseEditor(session, live), chooseEditor(session, reversed), cwd);
    }
    assert.deepEqual(chooseEditor(facts({ cwd: '/w/z' }), live), { editorId: 'a', reason: 'focus' });
  });
});

describe('containingDepth', () => {
  const depthCases: { name: string; folders: string[]; path: string; want: number }[] = [
    { name: 'cwd equal to the folder', folders: ['/a/b'], path: '/a/b', want: 4 },
    { name: 'cwd below the folder', folders: ['/a/b'], path: '/a/b/c/d', want: 4 },
    { name: 'a name prefix that is not a path segment', folders: ['/a/b'], path: '/a/bc', want: -1 },
    { name: 'a name prefix below a segment', folders: ['/a/b'], path: '/a/bc/d', want: -1 },
    { name: 'trailing slash on the folder, cwd equal', folders: ['/a/b/'], path: '/a/b', want: 4 },
    { name: 'trailing slash on the folder, cwd below', folders: ['/a/b/'], path: '/a/b/c', want: 4 },
    { name: 'trailing slash on the folder, name prefix', folders: ['/a/b/'], path: '/a/bc', want: -1 },
    { name: 'trailing slash on cwd', folders: ['/a/b'], path: '/a/b/', want: 4 },
    { name: 'the root folder contains everything', folders: ['/'], path: '/a/b', want: 1 },
    { name: 'the root folder contains itself', folders: ['/'], path: '/', want: 1 },
    { name: 'a parent is not contained by its child', folders: ['/a/b'], path: '/a', want: -1 },
    { name: 'an unrelated folder', folders: ['/x'], path: '/a/b', want: -1 },
    { name: 'no folders', folders: [], path: '/a/b', want: -1 },
    { name: 'the deepest of several folders counts', folders: ['/a', '/a/b/c', '/a/b'], path: '/a/b/c/d', want: 6 },
    { name: 'the deepest of several, with the root among them', folders: ['/', '/a'], path: '/a/b', want: 2 },
    { name: 'a backslash is part of a POSIX name, not a separator', folders: ['/a/b'], path: '/a/b\\c', want: -1 },
    { name: 'a Windows folder contains its subfolder', folders: ['C:\\w\\app'], path: 'C:\\w\\app\\src', want: 8 },
    { name: 'Windows paths take either separator', folders: ['C:/w/app/'], path: 'C:\\w\\app\\src', want: 8 },
    { name: 'a Windows name prefix is not a segment', folders: ['C:\\w\\app'], path: 'C:\\w\\application', want: -1 },
    { name: 'a Windows drive root contains the drive', folders: ['C:\\'], path: 'C:\\w', want: 3 },
    { name: 'a UNC share contains its folders', folders: ['\\\\srv\\share\\'], path: '\\\\srv\\share\\x', want: 11 },
  ];
  for (const c of depthCases) {
    test(`${c.name}: ${JSON.stringify(c.folders)} vs ${c.path} → ${c.want}`, () => {
      assert.equal(containingDepth(c.folders, c.path), c.want);
    });
  }
});

describe('editorsForFolder', () => {
  test('lists the editors containing a folder, deepest first, and leaves the rest out', () => {
    const list = editorsForFolder([nvim, code, nested], '/home/me/app/packages/core/src');
    assert.deepEqual(
      list.map((e) => e.id),
      ['nested', 'nvim'],
    );
  });
});
