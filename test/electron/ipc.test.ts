import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../../src/api/types.ts';
import type { HubApi, HubMethod } from '../../src/api/types.ts';
import { parseHubCall } from '../../electron/shared/ipc.ts';
import { handle, hubCallHandler } from '../../electron/main/ipc-main.ts';
import type { InvokeEvent, IpcMainLike } from '../../electron/main/ipc-main.ts';
import { isAppPage, isTrustedSender } from '../../electron/main/trusted-sender.ts';

const APP_URL = 'file:///opt/Patchbay/resources/app/out/renderer/index.html';

/** An ipcMain that keeps its handlers so a test can invoke them. */
function fakeIpcMain(): IpcMainLike & { invoke(channel: string, event: InvokeEvent, request: unknown): Promise<unknown> } {
  const handlers = new Map<string, (event: InvokeEvent, request: unknown) => Promise<unknown>>();
  return {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
    invoke: (channel, event, request) => {
      const handler = handlers.get(channel);
      if (handler === undefined) throw new Error(`no handler for ${channel}`);
      return handler(event, request);
    },
  };
}

function frameEvent(url: string | null, webContentsId: number, isMainFrame = true): InvokeEvent {
  const frame = url === null ? null : ({ url, parent: isMainFrame ? null : {} } as unknown as InvokeEvent['senderFrame']);
  return { senderFrame: frame, sender: { id: webContentsId } };
}

const fakeHub = (calls: { method: HubMethod; params: unknown }[] = []): HubApi => ({
  call: async (method, params) => {
    calls.push({ method, params });
    if (method === 'diffs.get') throw new HubError('unknown diff "x"', 'not-found');
    if (method === 'restore') throw new Error('disk on fire');
    return { ok: method } as never;
  },
  subscribe: () => () => {},
});

test('an unknown hub method is refused before it reaches the hub', () => {
  assert.throws(() => parseHubCall({ method: 'shutdownEverything', params: {} }), /unknown method "shutdownEverything"/);
  assert.throws(() => parseHubCall('snapshot'), /must be an object/);
  assert.throws(() => parseHubCall(null), /must be an object/);
  assert.deepEqual(parseHubCall({ method: 'bind', params: { sessionId: 's', editorId: null } }), {
    method: 'bind',
    params: { sessionId: 's', editorId: null },
  });
});

test("only the top frame of Patchbay's own windows, on Patchbay's page, is trusted", () => {
  const policy = { appUrl: APP_URL, windowIds: new Set([7]) };
  const cases: { frameUrl: string | null; id: number; main?: boolean; trusted: boolean; why: string }[] = [
    { frameUrl: `${APP_URL}#/review/d1`, id: 7, trusted: true, why: 'own page with a route' },
    { frameUrl: APP_URL, id: 8, trusted: false, why: 'a window Patchbay did not create' },
    { frameUrl: 'file:///home/me/evil.html', id: 7, trusted: false, why: 'another local file' },
    { frameUrl: 'https://example.com/', id: 7, trusted: false, why: 'a web page' },
    { frameUrl: APP_URL, id: 7, main: false, trusted: false, why: 'a subframe' },
    { frameUrl: null, id: 7, trusted: false, why: 'a frame already gone' },
  ];
  for (const c of cases) {
    assert.equal(isTrustedSender({ frameUrl: c.frameUrl, webContentsId: c.id, isMainFrame: c.main ?? true }, policy), c.trusted, c.why);
  }
});

test('under the dev server, any page of its origin is the app', () => {
  assert.equal(isAppPage('http://localhost:5173/index.html#/settings', 'http://localhost:5173/'), true);
  assert.equal(isAppPage('http://localhost:5174/', 'http://localhost:5173/'), false);
  assert.equal(isAppPage('not a url', 'http://localhost:5173/'), false);
});

test('hub:call answers trusted windows and refuses everyone else', async () => {
  const ipc = fakeIpcMain();
  const calls: { method: HubMethod; params: unknown }[] = [];
  const trusted = (s: { frameUrl: string | null; webContentsId: number; isMainFrame: boolean }): boolean =>
    isTrustedSender(s, { appUrl: APP_URL, windowIds: new Set([1]) });
  const unregister = handle(ipc, 'hub:call', trusted, hubCallHandler(fakeHub(calls)));

  const request = { method: 'setPaused', params: { paused: true } };
  assert.deepEqual(await ipc.invoke('hub:call', frameEvent(APP_URL, 1), request), { ok: true, result: { ok: 'setPaused' } });

  const logged: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args.join(' '));
  try {
    await assert.rejects(ipc.invoke('hub:call', frameEvent('https://evil.example/', 1), request), /sender not allowed/);
    await assert.rejects(ipc.invoke('hub:call', frameEvent(APP_URL, 2), request), /sender not allowed/);
    await assert.rejects(ipc.invoke('hub:call', frameEvent(APP_URL, 1), { method: 'eval', params: {} }), /unknown method "eval"/);
  } finally {
    console.error = original;
  }
  assert.equal(calls.length, 1, 'refused requests never reach the hub');
  assert.match(String(logged[0]), /refused a request from https:\/\/evil\.example\//);

  unregister();
  assert.throws(() => ipc.invoke('hub:call', frameEvent(APP_URL, 1), request), /no handler/);
});

test("the hub's errors reach the window with their code, as data", async () => {
  const handler = hubCallHandler(fakeHub());
  assert.deepEqual(await handler({ method: 'diffs.get', params: { id: 'x' } }), {
    ok: false,
    error: { message: 'unknown diff "x"', code: 'not-found' },
  });
  const original = console.error;
  console.error = () => {};
  try {
    assert.deepEqual(await handler({ method: 'restore', params: undefined }), {
      ok: false,
      error: { message: 'disk on fire', code: 'internal' },
    });
  } finally {
    console.error = original;
  }
});
