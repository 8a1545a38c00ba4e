// The HubApi contract at both faces: a call of the wrong shape is refused as `invalid`, naming
// the field, before anything is looked up; nothing changes; nothing answers `internal`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { handle, hubCallHandler, type InvokeEvent, type IpcMainLike } from '../../electron/main/ipc-main.ts';
import { bridgeHub } from '../../electron/shared/bridge.ts';
import type { HubCallResponse } from '../../electron/shared/ipc.ts';
import { HUB_METHODS, HubError, type HubApi, type HubMethod } from '../../src/api/types.ts';
import { connectControl } from '../../src/web/control-client.ts';
import { startControlServer, type ControlServer } from '../../src/web/control-server.ts';
import { startHarness, type Harness } from '../relay/harness.ts';

/** Per command, parameters of the wrong shape (besides the ones every command refuses). */
const MALFORMED: Record<HubMethod, unknown[]> = {
  snapshot: [{ verbose: true }],
  restart: [{ now: true }],
  'notices.dismiss': [{}, { id: 3 }],
  bind: [{ sessionId: 5, editorId: null }, { sessionId: 's1' }, { sessionId: 's1', editorId: 7 }],
  unpin: [{}, { sessionId: ['s1'] }],
  restore: [{ force: true }],
  setPaused: [{ paused: 'no' }, { paused: 1 }, {}],
  'diffs.get': [{}, { id: 1 }],
  'diffs.accept': [{ id: 'd1', contents: 42 }, { contents: 'x' }],
  'diffs.reject': [{ id: null }],
  'diffs.acceptAll': [{ session: 's1' }],
  'diffs.rejectAll': [{ sessionId: 1 }],
  'diffs.decideLater': [{ id: 'd1', outcome: 'accept' }, { id: 'd1', outcome: 'maybe', graceMs: 0, batch: 'b', verb: '', what: '' }, { id: 'd1', outcome: 'accept', graceMs: -1, batch: 'b', verb: '', what: '' }],
  'diffs.takeBack': [{ ids: 'd1' }],
  'diffs.sendNow': [{}],
  'diffs.keep': [{}, { id: 'd1', notes: [{ line: 0, text: 'x' }] }, { id: 'd1', notes: [{ line: 2, text: ' ' }] }],
  'diffs.undo': [{ id: 'd1', changes: [0] }, { id: 'd1', changes: '1,3' }, { changes: [1] }],
  'diffs.keepAll': [{ ids: [] }, { ids: 'd1' }],
  'diffs.undoAll': [{ ids: [7] }, {}],
  'reviewMode.get': [{ project: 'relative' }],
  'reviewMode.set': [{ value: 'later' }, { project: '/tmp' }, { project: 'rel', value: 'after' }],
  traffic: [{ sessionId: 's1', limit: 'all' }, { sessionId: 's1', limit: 0 }, { sessionId: 's1', limit: 2.5 }, { limit: 5 }],
  'settings.get': [{ key: 'takeover' }],
  'remotes.reload': [{ wait: 5 }, { name: 'devbox' }],
  'settings.set': [{ patch: 'takeover=false' }, { patch: { takeover: 'no' } }, { patch: { noSuchSetting: 1 } }, { patch: { diagnosticsDeadlineMs: -5 } }],
  'autoconnect.get': [{ project: 42 }, { project: 'relative/dir' }],
  'autoconnect.set': [{ value: 'on' }, { project: 'rel', value: true }, {}],
  'models.list': [{ sessionId: 3 }],
  'models.refresh': [{}],
  'suggestionModel.set': [{ choice: 5 }, { choice: 'editor', editorId: 9 }],
  'pi.start': [{ cwd: 'relative' }, { cwd: '/tmp', args: '-e evil.ts' }, { cwd: '/tmp', args: [1] }, {}],
  'pi.get': [{ id: 7 }],
  'pi.prompt': [
    { id: 'p1' },
    { id: 'p1', text: 'hi', streamingBehavior: 'now' },
    { id: 'p1', text: 'hi', images: [{ data: 'not base64!', mimeType: 'image/png' }] },
    { id: 'p1', text: 'hi', images: [{ data: 'AAAA', mimeType: 'image/svg+xml' }] },
  ],
  'pi.abort': [{}],
  'pi.state': [{ id: '' }],
  'pi.models': [{ id: {} }],
  'pi.setModel': [{ id: 'p1', provider: 'openai' }],
  'pi.setThinking': [{ id: 'p1', level: 3 }],
  'pi.stats': [{ ids: ['p1'] }],
  'pi.answer': [{ id: 'p1', requestId: 5, answer: { value: 'x' } }, { id: 'p1', requestId: 'r', answer: { value: 1 } }, { id: 'p1', requestId: 'r', answer: 'yes' }],
  'pi.stop': [{ id: null }, { id: 'p1', keep: 'yes' }],
  'pi.resume': [{}, { id: 'p1', sessionFile: '/s.jsonl' }, { sessionFile: 'relative.jsonl' }, { sessionFile: '/etc/passwd' }],
  'pi.sessions': [{ sessionDir: 'relative' }],
  'pi.commands': [{}],
  'pi.thinkingLevels': [{ id: 3 }],
  'pi.forkPoints': [{ ids: 'p1' }],
  'pi.fork': [{ id: 'p1' }, { id: 'p1', entryId: 7 }],
  'pi.clone': [{ id: 'p1', at: 'x' }],
  'pi.newSession': [{ id: null }],
  'pi.switchSession': [{ id: 'p1' }, { id: 'p1', sessionFile: '/home/u/notes.txt' }],
  'pi.tree': [{}],
  'pi.compact': [{ id: 'p1', instructions: 5 }],
  'pi.setName': [{ id: 'p1', name: '   ' }, { id: 'p1' }],
  'pi.exportHtml': [{ id: 'p1', outputPath: 'out.html' }, { id: 'p1', outputPath: '/home/u/.bashrc' }],
  'pi.bash': [{ id: 'p1', command: '' }, { id: 'p1', command: 'ls', excludeFromContext: 'yes' }],
  'pi.abortBash': [{ id: 1 }],
  'pi.clearQueue': [{}],
  'pi.setQueueModes': [{ id: 'p1', steering: 'some' }],
  'pi.setAutoCompaction': [{ id: 'p1' }, { id: 'p1', enabled: 'on' }],
  'pi.setAutoRetry': [{ id: 'p1', enabled: 1 }],
  'pi.abortRetry': [{ id: [] }],
};

/** Shapes no command takes. */
const NEVER = [42, 'snapshot', [1, 2], { unexpected: true }];

function ipcFace(hub: HubApi): HubApi {
  const handlers = new Map<string, (event: InvokeEvent, request: unknown) => Promise<unknown>>();
  const ipc: IpcMainLike = { handle: (channel, listener) => void handlers.set(channel, listener), removeHandler: () => {} };
  handle(ipc, 'hub:call', () => true, hubCallHandler(hub));
  const event: InvokeEvent = { senderFrame: null, sender: { id: 1 } };
  return bridgeHub({
    invoke: (method, params) => handlers.get('hub:call')!(event, { method, params }) as Promise<HubCallResponse>,
    subscribe: () => () => {},
  });
}

describe('malformed commands at both faces', () => {
  let h: Harness;
  let server: ControlServer;
  const faces: [string, HubApi][] = [];
  before(async () => {
    h = await startHarness();
    server = await startControlServer({ hub: h.hub, host: '127.0.0.1', port: 0, home: h.options.home, version: 'test', log: () => {} });
    faces.push(['WebSocket', await connectControl(h.options.home)], ['IPC', ipcFace(h.hub)]);
  });
  after(async () => {
    for (const [, face] of faces) (face as { close?: () => void }).close?.();
    await server.close();
    await h.close();
  });

  test('every command has a malformed example here', () => {
    assert.deepEqual(Object.keys(MALFORMED).sort(), [...HUB_METHODS].sort());
  });

  for (const face of ['WebSocket', 'IPC']) {
    test(`over ${face}, each is refused as invalid naming what is wrong, and the snapshot is unchanged`, async () => {
      const api = faces.find(([name]) => name === face)![1];
      const before = JSON.stringify(await api.call('snapshot', undefined));
      for (const method of HUB_METHODS) {
        for (const params of [...MALFORMED[method], ...(method === 'snapshot' || method === 'restore' || method === 'settings.get' ? [] : NEVER)]) {
          const what = `${method} ${JSON.stringify(params)}`;
          const error = await api.call(method, params as never).then(
            () => assert.fail(`${what} was accepted`),
            (err: unknown) => err,
          );
          assert.ok(error instanceof HubError, `${what}: ${String(error)}`);
          assert.equal(error.code, 'invalid', `${what}: ${error.message}`);
          assert.match(error.message, new RegExp(`^(${method.replace('.', '\\.')}|settings): `), what);
        }
      }
      assert.equal(JSON.stringify(await api.call('snapshot', undefined)), before);
    });
  }

  test('the issue’s examples name their field and what was given', async () => {
    const [, api] = faces[0]!;
    const message = (method: HubMethod, params: unknown) => api.call(method, params as never).catch((err: Error) => err.message);
    assert.equal(await message('setPaused', { paused: 'no' }), 'setPaused: "paused" must be true or false (got "no")');
    assert.equal(await message('autoconnect.get', { project: 42 }), 'autoconnect.get: "project" must be an absolute path (got 42)');
    assert.equal(await message('traffic', { sessionId: 's1', limit: 'all' }), 'traffic: "limit" must be a whole number from 1 to 100000 (got "all")');
    assert.equal(await message('unpin', {}), 'unpin: "sessionId" must be a session id such as "s1" (got nothing)');
    assert.equal(await message('snapshot', { verbose: true }), 'snapshot: unknown parameter "verbose"');
  });
});
