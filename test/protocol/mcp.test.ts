import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  initializeResult,
  MCP_PROTOCOL_VERSION,
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
