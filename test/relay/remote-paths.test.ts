import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answerToRemote, diagnosticsToRemote, notificationToRemote, requestToLocal, tabsToRemote } from '../../src/relay/remote-paths.ts';
import { textResult } from '../../src/protocol/mcp.ts';
import type { PathMapping } from '../../src/remote/paths.ts';

const maps: PathMapping[] = [{ remote: '/home/dev/p', local: '/Users/me/p' }];

describe("a remote session's frames name files as each side knows them", () => {
  test("a Claude agent's openFile and checkDocumentDirty reach the editor at the local path", () => {
    const msg = { jsonrpc: '2.0' as const, id: 3, method: 'tools/call', params: { name: 'openFile', arguments: { filePath: '/home/dev/p/src/a.ts', preview: false } } };
    assert.deepEqual(requestToLocal(msg, maps).params, { name: 'openFile', arguments: { filePath: '/Users/me/p/src/a.ts', preview: false } });
  });

  test('a selection in a diff’s proposed side keeps how each editor names it', () => {
    const pi = notificationToRemote({ method: 'selection_changed', params: { filePath: '/Users/me/p/a.ts [pi-proposed]', text: '' } }, maps);
    assert.equal((pi?.params as { filePath: string }).filePath, '/home/dev/p/a.ts [pi-proposed]');
    const code = notificationToRemote({ method: 'selection_changed', params: { filePath: '/Users/me/p/a.ts', fileUrl: '_claude_fs_right:/Users/me/p/a.ts' } }, maps);
    assert.deepEqual(code?.params, { filePath: '/home/dev/p/a.ts', fileUrl: '_claude_fs_right:/home/dev/p/a.ts' });
    const url = notificationToRemote({ method: 'at_mentioned', params: { filePath: '/Users/me/p/a b.ts', fileUrl: 'file:///Users/me/p/a%20b.ts' } }, maps);
    assert.deepEqual(url?.params, { filePath: '/home/dev/p/a b.ts', fileUrl: 'file:///home/dev/p/a%20b.ts' });
  });

  test('a selection in a file no map covers never reaches the agent', () => {
    assert.equal(notificationToRemote({ method: 'selection_changed', params: { filePath: '/Users/me/other/a.ts' } }, maps), null);
  });

  test('diagnostics of files no map covers are left out, in both dialects', () => {
    const pi = diagnosticsToRemote(textResult(JSON.stringify({ 'file:///Users/me/p/a.ts': [{ message: 'x' }], 'file:///etc/hosts': [] })), 'pi', maps);
    assert.deepEqual(JSON.parse((pi as { content: { text: string }[] }).content[0]!.text), { 'file:///home/dev/p/a.ts': [{ message: 'x' }] });
    const claude = diagnosticsToRemote(textResult(JSON.stringify([{ uri: 'file:///Users/me/p/a.ts', diagnostics: [] }, { uri: 'file:///tmp/x', diagnostics: [] }])), 'claude', maps);
    assert.deepEqual(JSON.parse((claude as { content: { text: string }[] }).content[0]!.text), [{ uri: 'file:///home/dev/p/a.ts', diagnostics: [] }]);
  });

  test('open editor tabs are the agent’s files only, by its paths', () => {
    const tabs = tabsToRemote(textResult(JSON.stringify({ tabs: [{ uri: 'file:///Users/me/p/a.ts', label: 'a.ts' }, { uri: 'file:///Users/me/notes.md', label: 'notes.md' }] })), maps);
    assert.deepEqual(JSON.parse((tabs as { content: { text: string }[] }).content[0]!.text), { tabs: [{ uri: 'file:///home/dev/p/a.ts', label: 'a.ts' }] });
  });

  test('a forwarded answer’s paths (getWorkspaceFolders, getCurrentSelection) are mapped; text that is not JSON passes', () => {
    const answer = answerToRemote({ jsonrpc: '2.0', id: 1, result: textResult(JSON.stringify({ folders: [{ name: 'p', uri: 'file:///Users/me/p', path: '/Users/me/p' }], rootPath: '/Users/me/p' }), 'plain words') }, maps);
    const [json, plain] = (answer.result as { content: { text: string }[] }).content;
    assert.deepEqual(JSON.parse(json!.text), { folders: [{ name: 'p', uri: 'file:///home/dev/p', path: '/home/dev/p' }], rootPath: '/home/dev/p' });
    assert.equal(plain!.text, 'plain words');
  });
});
