import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import {
  AUTH_HEADER,
  cleanToolList,
  closesDecidedDiffs,
  editorTabName,
  emptyDiagnostics,
  emptyOpenEditors,
  isOpenEditorsTool,
  toolNameFor,
  translateDiagnostics,
  translateNotification,
  translateOpenEditors,
} from '../../src/protocol/dialect.ts';
import { textResult, type ToolSpec } from '../../src/protocol/mcp.ts';
import { BUILTIN_TOOLS } from '../../src/relay/tools/index.ts';

const diag = (message: string) => ({ message, severity: 'Error', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });
const A = 'file:///w/a.ts';
const B = 'file:///w/b.ts';

/** The one JSON text a translated result carries. */
function json(result: unknown): unknown {
  const content = (result as { content: { type: string; text: string }[] }).content;
  assert.equal(content.length, 1, 'one text item');
  assert.equal(content[0]!.type, 'text');
  return JSON.parse(content[0]!.text);
}

describe('translateDiagnostics', () => {
  test('a pi-ide.nvim map becomes a Claude array', () => {
    const result = textResult(JSON.stringify({ [A]: [diag('x')], [B]: [] }));
    assert.deepEqual(json(translateDiagnostics(result, 'claude')), [
      { uri: A, diagnostics: [diag('x')] },
      { uri: B, diagnostics: [] },
    ]);
  });

  test('a Claude array becomes a pi map', () => {
    const result = textResult(JSON.stringify([{ uri: A, diagnostics: [diag('y')] }]));
    assert.deepEqual(json(translateDiagnostics(result, 'pi')), { [A]: [diag('y')] });
  });

  test('a map stays a map and an array stays an array in their own dialect', () => {
    const map = { [A]: [diag('m')] };
    assert.deepEqual(json(translateDiagnostics(textResult(JSON.stringify(map)), 'pi')), map);
    const array = [{ uri: A, diagnostics: [diag('a')] }];
    assert.deepEqual(json(translateDiagnostics(textResult(JSON.stringify(array)), 'claude')), array);
  });

  test("pi-ide.nvim's empty map, encoded as [], becomes {} for pi and stays [] for Claude", () => {
    assert.deepEqual(translateDiagnostics(textResult('[]'), 'pi'), textResult('{}'));
    assert.deepEqual(translateDiagnostics(textResult('[]'), 'claude'), textResult('[]'));
  });

  test('several text items are merged into one, and a file named twice keeps all its diagnostics', () => {
    const result = textResult(JSON.stringify({ [A]: [diag('1')] }), JSON.stringify([{ uri: B, diagnostics: [diag('2')] }]), JSON.stringify({ [A]: [diag('3')] }));
    assert.deepEqual(json(translateDiagnostics(result, 'pi')), { [A]: [diag('1'), diag('3')], [B]: [diag('2')] });
    assert.deepEqual(json(translateDiagnostics(result, 'claude')), [
      { uri: A, diagnostics: [diag('1'), diag('3')] },
      { uri: B, diagnostics: [diag('2')] },
    ]);
  });

  test('an array entry without diagnostics counts as a file with none', () => {
    assert.deepEqual(json(translateDiagnostics(textResult(JSON.stringify([{ uri: A }])), 'pi')), { [A]: [] });
  });

  test('a uri that is an Object.prototype name is kept as a plain key', () => {
    const weird = '__proto__';
    const result = textResult(`{"${weird}":[{"message":"m"}]}`);
    assert.equal(
      (translateDiagnostics(result, 'claude') as { content: { text: string }[] }).content[0]!.text,
      `[{"uri":"${weird}","diagnostics":[{"message":"m"}]}]`,
    );
  });

  const legacy = textResult(
    JSON.stringify({ filePath: '/w/a.ts', line: 1, character: 1, severity: 1, message: 'x', source: 'ts' }),
    JSON.stringify({ filePath: '/w/a b.ts', line: 3, character: 5, severity: 2, message: 'y', source: 'ts' }),
    JSON.stringify({ filePath: '/w/a.ts', line: 2, character: 1, severity: 3, message: 'z' }),
  );

  test("an older claudecode.nvim's one object per diagnostic becomes pi's map: 0-based, severities by name", () => {
    const at = (line: number, character: number) => ({ start: { line, character }, end: { line, character } });
    assert.deepEqual(json(translateDiagnostics(legacy, 'pi')), {
      'file:///w/a.ts': [
        { message: 'x', severity: 'Error', source: 'ts', range: at(0, 0) },
        { message: 'z', severity: 'Information', range: at(1, 0) },
      ],
      'file:///w/a%20b.ts': [{ message: 'y', severity: 'Warning', source: 'ts', range: at(2, 4) }],
    });
  });

  test("an older claudecode.nvim's empty answer (no item) is pi's empty map", () => {
    assert.deepEqual(translateDiagnostics({ content: [] }, 'pi'), textResult('{}'));
  });

  for (const [name, result] of [["an older claudecode.nvim's diagnostics", legacy], ['an empty content list', { content: [] }]] as const) {
    test(`${name} pass to Claude Code, which reads them, untouched`, () => {
      assert.equal(translateDiagnostics(result, 'claude'), result);
    });
  }

  const untouched: { name: string; result: unknown }[] = [
    { name: 'a non-JSON text', result: textResult('no diagnostics here') },
    { name: 'a JSON number', result: textResult('42') },
    { name: 'a JSON string', result: textResult('"x"') },
    { name: 'an array of non-objects', result: textResult('[1,2]') },
    { name: 'an array entry without a uri', result: textResult(JSON.stringify([{ diagnostics: [] }])) },
    { name: 'an array entry whose diagnostics are not a list', result: textResult(JSON.stringify([{ uri: A, diagnostics: 'none' }])) },
    { name: 'a map whose values are not lists', result: textResult(JSON.stringify({ [A]: { message: 'x' } })) },
    { name: 'one good item and one bad', result: textResult('{}', 'oops') },
    { name: 'a result without content', result: { something: 'else' } },
    { name: 'null', result: null },
    { name: 'an error result', result: { ...textResult('LSP not ready'), isError: true } },
  ];
  for (const { name, result } of untouched) {
    for (const to of ['pi', 'claude'] as const) {
      test(`${name} passes through untouched (to ${to})`, () => {
        const before = structuredClone(result);
        assert.equal(translateDiagnostics(result, to), result);
        assert.deepEqual(result, before);
      });
    }
  }
});

describe('emptyDiagnostics', () => {
  test('is an empty map for pi and an empty array for Claude', () => {
    assert.deepEqual(emptyDiagnostics('pi'), { content: [{ type: 'text', text: '{}' }] });
    assert.deepEqual(emptyDiagnostics('claude'), { content: [{ type: 'text', text: '[]' }] });
  });
});

describe('translateOpenEditors', () => {
  const piTabs = [
    { uri: 'file:///w/src/a.ts', isActive: true, isDirty: false, languageId: 'typescript' },
    { uri: 'file:///w/my%20notes.md', isActive: false, isDirty: true, languageId: 'markdown' },
  ];

  test('pi-ide.nvim tabs become Claude tabs, each labelled with its file name', () => {
    assert.deepEqual(json(translateOpenEditors(textResult(JSON.stringify(piTabs)), 'claude')), {
      tabs: [
        { ...piTabs[0], label: 'a.ts' },
        { ...piTabs[1], label: 'my notes.md' },
      ],
    });
  });

  test('an existing label is kept', () => {
    const tabs = [{ uri: 'file:///w/a.ts', label: 'a.ts — project' }];
    assert.deepEqual(json(translateOpenEditors(textResult(JSON.stringify(tabs)), 'claude')), { tabs });
  });

  test('a label is never empty, even for a uri ending in a slash', () => {
    const out = json(translateOpenEditors(textResult(JSON.stringify([{ uri: 'file:///w/dir/' }])), 'claude')) as { tabs: { label: string }[] };
    assert.equal(out.tabs[0]!.label, 'dir');
  });

  test('Claude tabs become a pi list', () => {
    const tabs = [{ uri: 'file:///w/a.ts', isActive: true, label: 'a.ts', languageId: 'typescript', isDirty: false }];
    assert.deepEqual(json(translateOpenEditors(textResult(JSON.stringify({ tabs })), 'pi')), tabs);
  });

  test('no tabs, in either encoding, is an empty list in the agent’s shape', () => {
    assert.deepEqual(json(translateOpenEditors(textResult('[]'), 'claude')), { tabs: [] });
    assert.deepEqual(json(translateOpenEditors(textResult('{"tabs":[]}'), 'pi')), []);
    // A Lua editor's empty table may come out as {}.
    assert.deepEqual(json(translateOpenEditors(textResult('{"tabs":{}}'), 'pi')), []);
  });

  test('entries without a uri are left out', () => {
    const tabs = [{ uri: 'file:///w/a.ts' }, { name: 'no uri' }, 'junk', null];
    assert.deepEqual(json(translateOpenEditors(textResult(JSON.stringify(tabs)), 'pi')), [{ uri: 'file:///w/a.ts' }]);
  });

  for (const [name, result] of [
    ['non-JSON text', textResult('not json')],
    ['an object without tabs', textResult('{"files":[]}')],
    ['a number', textResult('3')],
    ['null JSON', textResult('null')],
    ['no content', { nothing: true }],
  ] as const) {
    test(`${name} passes through untouched`, () => {
      assert.equal(translateOpenEditors(result, 'claude'), result);
      assert.equal(translateOpenEditors(result, 'pi'), result);
    });
  }
});

describe('toolNameFor', () => {
  const cases: [string, 'pi' | 'claude', 'pi' | 'claude', string][] = [
    ['getOpenEditorTabs', 'pi', 'claude', 'getOpenEditors'],
    ['getOpenEditors', 'claude', 'pi', 'getOpenEditorTabs'],
    ['getOpenEditorTabs', 'pi', 'pi', 'getOpenEditorTabs'],
    ['getOpenEditors', 'claude', 'claude', 'getOpenEditors'],
    // A name that is not the sender's own is not translated.
    ['getOpenEditors', 'pi', 'claude', 'getOpenEditors'],
    ['getDiagnostics', 'pi', 'claude', 'getDiagnostics'],
    ['openDiff', 'claude', 'pi', 'openDiff'],
  ];
  for (const [name, from, to, want] of cases) {
    test(`${name} from ${from} to ${to} → ${want}`, () => assert.equal(toolNameFor(name, from, to), want));
  }
});

describe('open editors with no editor to ask', () => {
  test('both dialects\' tool names are recognised, nothing else', () => {
    assert.deepEqual(['getOpenEditorTabs', 'getOpenEditors', 'getDiagnostics', 'openDiff'].map(isOpenEditorsTool), [true, true, false, false]);
  });
  test('the empty answer has each dialect\'s shape', () => {
    assert.deepEqual(emptyOpenEditors('pi'), textResult('[]'));
    assert.deepEqual(emptyOpenEditors('claude'), textResult('{"tabs":[]}'));
  });
});

describe('translateNotification', () => {
  const selection = { start: { line: 2, character: 0 }, end: { line: 4, character: 3 }, isEmpty: false };
  const changed = (params: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'selection_changed', params: { text: 'sel', selection, ...params } });

  test('VS Code → pi: fileUrl goes (pi-ide.nvim sends none), the path stays', () => {
    const msg = changed({ filePath: '/w/my notes.md', fileUrl: 'file:///w/my%20notes.md' });
    assert.deepEqual(translateNotification(msg, 'claude', 'pi'), changed({ filePath: '/w/my notes.md' }));
  });

  test("VS Code → pi: a selection in a diff's proposed side names the file as pi-ide.nvim does, '<path> [pi-proposed]'", () => {
    // The extension's proposed side is `_claude_fs_right:<path>`, and its filePath that URI's fsPath: the file's own path.
    const msg = changed({ filePath: '/w/a.ts', fileUrl: '_claude_fs_right:/w/a.ts' });
    assert.deepEqual(translateNotification(msg, 'claude', 'pi'), changed({ filePath: '/w/a.ts [pi-proposed]' }));
  });

  test("claudecode.nvim → pi: a selection in a diff's proposed buffer names that diff's file as pi-ide.nvim does", () => {
    const tabs: Record<string, string> = { '✻ [pi] a.ts (d3) ⧉': '/w/src/a.ts', '✻ [pi] new.ts (d4) ⧉': '/w/new.ts' };
    const fileOfTab = (tab: string) => tabs[tab] ?? null;
    const inBuffer = (name: string) => changed({ filePath: `/w/${name}`, fileUrl: `file:///w/${name}` });
    assert.deepEqual(translateNotification(inBuffer('✻ [pi] a.ts (d3) ⧉ (proposed)'), 'claude', 'pi', fileOfTab), changed({ filePath: '/w/src/a.ts [pi-proposed]' }));
    assert.deepEqual(translateNotification(inBuffer('✻ [pi] new.ts (d4) ⧉ (NEW FILE - proposed)'), 'claude', 'pi', fileOfTab), changed({ filePath: '/w/new.ts [pi-proposed]' }));
    // A buffer of no diff Patchbay knows (or a file really named so) stays as it is.
    assert.deepEqual(translateNotification(inBuffer('notes (proposed)'), 'claude', 'pi', fileOfTab), changed({ filePath: '/w/notes (proposed)' }));
  });

  test("VS Code → pi: the original side of a diff (`_claude_fs_left:`, a dirty file's copy) is just the file", () => {
    const msg = changed({ filePath: '/w/a.ts', fileUrl: '_claude_fs_left:/w/a.ts' });
    assert.deepEqual(translateNotification(msg, 'claude', 'pi'), changed({ filePath: '/w/a.ts' }));
  });

  test('pi-ide.nvim → Claude: a file:// fileUrl is added, percent-encoded as VS Code writes it', () => {
    const msg = changed({ filePath: '/w/my notes#1.md' });
    assert.deepEqual(translateNotification(msg, 'pi', 'claude'), changed({ filePath: '/w/my notes#1.md', fileUrl: 'file:///w/my%20notes%231.md' }));
  });

  test("pi-ide.nvim → Claude: its proposed buffer '<path> [pi-proposed]' becomes the file's path and VS Code's proposed-side URL", () => {
    const msg = changed({ filePath: '/w/a.ts [pi-proposed]' });
    assert.deepEqual(translateNotification(msg, 'pi', 'claude'), changed({ filePath: '/w/a.ts', fileUrl: '_claude_fs_right:/w/a.ts' }));
  });

  test('the two directions undo each other for a proposed side', () => {
    const fromCode = changed({ filePath: '/w/a.ts', fileUrl: '_claude_fs_right:/w/a.ts' });
    assert.deepEqual(translateNotification(translateNotification(fromCode, 'claude', 'pi'), 'pi', 'claude'), fromCode);
  });

  const same: { name: string; msg: { method: string; params?: unknown }; from: 'pi' | 'claude'; to: 'pi' | 'claude' }[] = [
    { name: 'a selection within one dialect (Claude)', msg: changed({ filePath: '/w/a.ts', fileUrl: '_claude_fs_right:/w/a.ts' }), from: 'claude', to: 'claude' },
    { name: 'a selection within one dialect (pi)', msg: changed({ filePath: '/w/a.ts [pi-proposed]' }), from: 'pi', to: 'pi' },
    // pi-ide ignores every notification but selection_changed and request_cancelled; Claude Code reads these as they are.
    { name: "VS Code's at_mentioned, to pi", msg: { method: 'at_mentioned', params: { filePath: '/w/a.ts', lineStart: 1, lineEnd: 3 } }, from: 'claude', to: 'pi' },
    { name: "VS Code's at_mentioned, to Claude", msg: { method: 'at_mentioned', params: { filePath: '/w/a.ts', lineStart: 1, lineEnd: 3 } }, from: 'claude', to: 'claude' },
    { name: "VS Code's log_event, to pi", msg: { method: 'log_event', params: { eventName: 'x', eventData: {} } }, from: 'claude', to: 'pi' },
    { name: 'a selection without a filePath', msg: { method: 'selection_changed', params: { text: '' } }, from: 'claude', to: 'pi' },
    { name: 'a selection whose params are not an object', msg: { method: 'selection_changed', params: [1] }, from: 'pi', to: 'claude' },
    { name: 'a Claude-shaped selection from a pi editor that already has a fileUrl', msg: changed({ filePath: '/w/a.ts', fileUrl: 'file:///w/a.ts' }), from: 'pi', to: 'claude' },
  ];
  for (const { name, msg, from, to } of same) {
    test(`${name} passes unchanged (the same object, forwarded as the bytes that came)`, () => {
      const before = structuredClone(msg);
      assert.equal(translateNotification(msg, from, to), msg);
      assert.deepEqual(msg, before);
    });
  }
});

describe('AUTH_HEADER', () => {
  test('names each dialect’s token header', () => {
    assert.deepEqual(AUTH_HEADER, { pi: 'x-pi-ide-authorization', claude: 'x-claude-code-ide-authorization' });
  });
});

/** What Claude Code's MCP client accepts for a tools/list answer (one bad tool drops them all). */
const claudeToolList = z.array(
  z.looseObject({
    name: z.string(),
    description: z.string().optional(),
    inputSchema: z.looseObject({
      type: z.literal('object'),
      properties: z.record(z.string(), z.unknown()),
    }),
  }),
);

describe('cleanToolList', () => {
  const piNvimTools: ToolSpec[] = [
    { name: 'openDiff', inputSchema: { type: 'object', properties: { tab_name: { type: 'string' } }, required: ['tab_name'] } },
    { name: 'getOpenEditorTabs', description: 'tabs', inputSchema: { type: 'object', properties: [], required: [] } },
    { name: 'getDiagnostics', inputSchema: { properties: { uri: { type: 'string' } } } },
    { name: 'noSchema' } as unknown as ToolSpec,
    { name: 'luaEmptySchema', inputSchema: [] as unknown as Record<string, unknown> },
    { name: 'nullProperties', inputSchema: { type: 'object', properties: null } },
  ];

  test('the raw pi-ide.nvim list is one Claude Code would refuse', () => {
    assert.equal(claudeToolList.safeParse(piNvimTools).success, false);
  });

  test('its output passes Claude Code’s validation', () => {
    const clean = cleanToolList(piNvimTools, 'pi', 'claude');
    const parsed = claudeToolList.safeParse(clean);
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues));
  });

  test('empty properties [] become {}, an empty required list is dropped, a missing type is object', () => {
    const [, tabs, diagnostics] = cleanToolList(piNvimTools, 'pi', 'claude');
    assert.deepEqual(tabs, { name: 'getOpenEditors', description: 'tabs', inputSchema: { type: 'object', properties: {} } });
    assert.deepEqual(diagnostics!.inputSchema, { type: 'object', properties: { uri: { type: 'string' } } });
  });

  test('names are renamed into the agent’s dialect, both ways', () => {
    assert.deepEqual(
      cleanToolList(piNvimTools, 'pi', 'claude').map((t) => t.name),
      ['openDiff', 'getOpenEditors', 'getDiagnostics', 'noSchema', 'luaEmptySchema', 'nullProperties'],
    );
    const claudeTools: ToolSpec[] = [{ name: 'getOpenEditors', inputSchema: { type: 'object', properties: {} } }];
    assert.deepEqual(
      cleanToolList(claudeTools, 'claude', 'pi').map((t) => t.name),
      ['getOpenEditorTabs'],
    );
  });

  test('good schemas keep everything else, and the input list is not changed', () => {
    const before = structuredClone(piNvimTools);
    const [openDiff] = cleanToolList(piNvimTools, 'pi', 'pi');
    assert.deepEqual(openDiff, piNvimTools[0]);
    assert.deepEqual(piNvimTools, before);
  });

  test("Patchbay's own tools pass Claude Code's validation as they are", () => {
    const parsed = claudeToolList.safeParse(BUILTIN_TOOLS);
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues));
  });
});

describe('tab names per editor dialect', () => {
  test('pi-ide.nvim takes any name; a Claude-dialect editor gets both markers, and a Claude Code name without "[Claude Code]" (VS Code would save it when another diff opens)', () => {
    assert.equal(editorTabName('pi-write:call_1', '/w/a.ts', 'd3', 'pi'), 'pi-write:call_1');
    assert.equal(editorTabName('pi-write:call_1', '/w/src/a.ts', 'd3', 'claude'), '✻ [pi] a.ts (d3) ⧉');
    assert.equal(editorTabName('pi-edit:x', 'C:\\w\\b.ts', 'd4', 'claude'), '✻ [pi] b.ts (d4) ⧉');
    const claude = '✻ [Claude Code] a.txt (998b60) ⧉';
    assert.equal(editorTabName(claude, '/w/a.txt', 'd5', 'claude'), '✻ [Claude Code · Patchbay] a.txt (998b60) ⧉');
    assert.equal(editorTabName(claude, '/w/a.txt', 'd5', 'pi'), claude);
  });

  test('only pi-ide.nvim closes a decided diff by itself', () => {
    assert.equal(closesDecidedDiffs('pi'), true);
    assert.equal(closesDecidedDiffs('claude'), false);
  });
});
