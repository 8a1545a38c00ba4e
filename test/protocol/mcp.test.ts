import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  initializeResult,
  MCP_PROTOCOL_VERSION,
  parseOpenDiffArgs,
  PATCHBAY_TOOLS,
  resultTexts,
  SERVER_NAME,
  textResult,
} from '../../src/protocol/mcp.ts';

describe('tool results', () => {
  test('textResult makes one text item per string', () => {
    assert.deepEqual(textResult('FILE_SAVED', 'abc'), {
      content: [
        { type: 'text', text: 'FILE_SAVED' },
        { type: 'text', text: 'abc' },
      ],
    });
    assert.deepEqual(textResult(), { content: [] });
  });

  test('resultTexts reads the texts back, with non-text items as empty strings', () => {
    assert.deepEqual(resultTexts(textResult('DIFF_REJECTED', 'tab')), ['DIFF_REJECTED', 'tab']);
    assert.deepEqual(resultTexts({ content: [{ type: 'image', data: 'x' }, { type: 'text', text: 't' }, null, 3] }), ['', 't', '', '']);
    assert.deepEqual(resultTexts({ content: [] }), []);
  });

  for (const [name, value] of [
    ['null', null],
    ['a string', 'FILE_SAVED'],
    ['an object without content', { result: 1 }],
    ['content that is not a list', { content: 'text' }],
  ] as const) {
    test(`resultTexts of ${name} is null`, () => assert.equal(resultTexts(value), null));
  }
});

describe('initialize', () => {
  test('answers with the protocol version the editors speak, whatever the client asked for', () => {
    const answer = initializeResult('1.2.3') as { protocolVersion: string; serverInfo: { name: string; version: string }; capabilities: unknown };
    assert.equal(MCP_PROTOCOL_VERSION, '2024-11-05');
    assert.equal(answer.protocolVersion, '2024-11-05');
    assert.deepEqual(answer.serverInfo, { name: SERVER_NAME, version: '1.2.3' });
    assert.deepEqual(answer.capabilities, { tools: { listChanged: true } });
  });
});

describe('parseOpenDiffArgs', () => {
  const good = { old_file_path: '/w/a.txt', new_file_path: '/w/a.txt', new_file_contents: 'x\n', tab_name: 'pi-write:1' };

  test('accepts the four string fields, including empty strings', () => {
    assert.deepEqual(parseOpenDiffArgs(good), good);
    const empty = { ...good, old_file_path: '', new_file_contents: '' };
    assert.deepEqual(parseOpenDiffArgs(empty), empty);
  });

  for (const field of ['old_file_path', 'new_file_path', 'new_file_contents', 'tab_name'] as const) {
    test(`a missing or non-string ${field} is refused with a message naming it`, () => {
      const { [field]: _, ...without } = good;
      assert.equal(parseOpenDiffArgs(without), `openDiff: "${field}" must be a string`);
      assert.equal(parseOpenDiffArgs({ ...good, [field]: 42 }), `openDiff: "${field}" must be a string`);
      assert.equal(parseOpenDiffArgs({ ...good, [field]: null }), `openDiff: "${field}" must be a string`);
    });
  }

  for (const [name, value] of [
    ['null', null],
    ['a string', 'openDiff'],
    ['undefined', undefined],
  ] as const) {
    test(`arguments that are ${name} are refused`, () => {
      assert.equal(parseOpenDiffArgs(value), 'openDiff: arguments must be an object');
    });
  }
});

describe("Patchbay's own tools", () => {
  test('are the built-in reviewer’s tools, each with an object schema', () => {
    assert.deepEqual(
      PATCHBAY_TOOLS.map((t) => t.name),
      ['openDiff', 'close_tab', 'closeAllDiffTabs', 'getDiagnostics'],
    );
    for (const tool of PATCHBAY_TOOLS) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(typeof tool.inputSchema.properties, 'object', tool.name);
      assert.ok(!Array.isArray(tool.inputSchema.properties), tool.name);
    }
  });

  test('openDiff requires exactly the fields parseOpenDiffArgs checks', () => {
    const openDiff = PATCHBAY_TOOLS.find((t) => t.name === 'openDiff')!;
    const required = openDiff.inputSchema.required as string[];
    const args = Object.fromEntries(required.map((k) => [k, 'v']));
    assert.deepEqual(parseOpenDiffArgs(args), args);
    for (const key of required) {
      const { [key]: _, ...missing } = args;
      assert.equal(typeof parseOpenDiffArgs(missing), 'string', key);
    }
  });
});
