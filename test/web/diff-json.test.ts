// Opening a big diff over the control server: its texts go out as the JSON bytes they are held in
// (the agent's frame, the history's contents file), never decoded and encoded again; what the
// browser or the CLI reads is the same detail as the hub's own, and a written text that is the
// proposal goes once. A text that is not a well-formed JSON string is never sent as it is.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LazyText, parseLazily } from '../../src/protocol/lazy-json.ts';
import { DiffHistory } from '../../src/review/history.ts';
import { Inbox } from '../../src/review/inbox.ts';
import { WebSocket } from 'ws';
import { connectControl } from '../../src/web/control-client.ts';
import { readControlFile } from '../../src/web/control-file.ts';
import { startControlServer } from '../../src/web/control-server.ts';
import { startHarness } from '../relay/harness.ts';
import { waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';

/** Counts decodes of big strings while `run` runs. */
async function decodes<T>(run: () => Promise<T>): Promise<{ result: T; count: number }> {
  const value = LazyText.prototype.value;
  let count = 0;
  LazyText.prototype.value = function (this: LazyText) {
    count++;
    return value.call(this);
  };
  try {
    return { result: await run(), count };
  } finally {
    LazyText.prototype.value = value;
  }
}

describe('a JSON string left as bytes', () => {
  const cases: [string, boolean][] = [
    ['"plain"', true],
    ['"quote \\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t"', true],
    ['"\\u00e9\\uD83D\\uDE80 ü 🚀"', true],
    ['"bad escape \\q"', false],
    ['"short unicode \\u12"', false],
    ['"not hex \\u12G4"', false],
    [`"raw tab\tinside"`, false],
    [`"raw newline\ninside"`, false],
    ['"ends in a backslash \\"', false],
  ];
  for (const [json, ok] of cases) {
    test(`${JSON.stringify(json)} is ${ok ? '' : 'not '}well-formed, as JSON.parse says`, () => {
      const bytes = Buffer.from(`[${json}]`);
      const parsed = parseLazily(bytes, 1)?.value;
      const text = Array.isArray(parsed) ? parsed[0] : new LazyText(bytes, 1, bytes.length - 1);
      const lazy = text instanceof LazyText ? text : new LazyText(bytes, 1, bytes.length - 1);
      let parses = true;
      try {
        JSON.parse(json);
      } catch {
        parses = false;
      }
      assert.equal(parses, ok, 'the case itself');
      assert.equal(lazy.wellFormed(), ok);
    });
  }

  test('a pending diff whose proposal is not a well-formed string is refused as by diffs.get, not sent as bytes', () => {
    const inbox = new Inbox<string>({ boundEditor: () => null, route: () => 'patchbay-only', now: () => 0 });
    const bytes = Buffer.from('"bad \\q escape"');
    const { id } = inbox.arrive({ sessionId: 's1', path: '/w/a', tabName: 'pi-write:1', newContents: new LazyText(bytes, 0, bytes.length), oldContents: null, isNew: true, tooLarge: false, bytes: 0, agent: 'pi-ide', reply: 'r' });
    assert.throws(() => inbox.getForJson(id), /not a valid JSON string/);
  });

  test("a big original is encoded once, the first time the diff is opened, and goes out as those bytes after", () => {
    const inbox = new Inbox<string>({ boundEditor: () => null, route: () => 'patchbay-only', now: () => 0 });
    const proposal = Buffer.from(JSON.stringify('proposed\n'));
    const arrive = (path: string) =>
      inbox.arrive({ sessionId: 's1', path, tabName: `pi-write:${path}`, newContents: new LazyText(proposal, 0, proposal.length), oldContents: null, isNew: false, tooLarge: false, bytes: 0, agent: 'pi-ide', reply: 'r' }).id;
    const text = 'const s = "a \\"quoted\\" ünïcödé\ttab";\n'.repeat(4000);
    const big = arrive('/w/big.ts');
    const small = arrive('/w/small.ts');
    inbox.originalRead(big, { contents: Buffer.from(text), isNew: false, tooLarge: false });
    inbox.originalRead(small, { contents: Buffer.from('short\n'), isNew: false, tooLarge: false });
    const first = inbox.getForJson(big)!.oldContents;
    assert.ok(first instanceof LazyText, 'held as its JSON text');
    assert.equal(first.value(), text);
    assert.ok(!/[^\x00-\x7f]/.test(first.raw.toString('latin1')), 'in ASCII (ü as \\u00fc)');
    assert.equal(inbox.getForJson(big)!.oldContents, first, 'the same bytes the second time: not encoded again');
    assert.equal(inbox.get(big)!.oldContents, text, 'and read back as the file');
    assert.equal(inbox.getForJson(small)!.oldContents, 'short\n', 'a small one stays a string');
  });
});

test('a 2 MiB diff, pending and then from the history, reaches a control client whole, with nothing decoded on the way', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const server = await startControlServer({ hub: h.hub, host: '127.0.0.1', port: 0, home: h.options.home, version: 'test', staticDir: h.root.path, log: () => {} });
  t.after(() => server.close());
  const client = await connectControl(h.options.home);
  t.after(() => client.close());
  const folder = await h.folder('big');
  const file = join(folder, 'big.ts');
  const line = 'export const value = "quoted \\"text\\" with a \\\\ backslash, ünïcödé and a tab\t";\n';
  const disk = line.repeat(Math.ceil((2 * 1024 * 1024) / line.length));
  const proposal = disk.replace('export const value', 'export const changed');
  await writeFile(file, disk);
  const pi = await h.pi(folder);
  const writing = pi.write(file, proposal);
  const [pending] = await waitFor(async () => {
    const diffs = (await h.hub.call('snapshot', undefined)).diffs;
    return diffs.length === 1 && diffs;
  });
  const local = await h.hub.call('diffs.get', { id: pending!.id });
  const remote = await decodes(() => client.call('diffs.get', { id: pending!.id }));
  assert.equal(remote.count, 0, 'the proposal was not decoded to be sent');
  assert.deepEqual(remote.result, local);
  assert.equal(remote.result.newContents, proposal);

  await h.hub.call('diffs.accept', { id: pending!.id });
  await writing;
  client.close();
  await server.close();
  await h.hub.close(); // every history write landed
  const reopened = await (await import('../../src/hub.ts')).createHub(h.options, {});
  const again = await startControlServer({ hub: reopened, host: '127.0.0.1', port: 0, home: h.options.home, version: 'test', staticDir: h.root.path, log: () => {} });
  const client2 = await connectControl(h.options.home);
  try {
    // The history's decoding reader is not used: its file's texts go out as they are.
    const detail = DiffHistory.prototype.detail;
    let read = 0;
    DiffHistory.prototype.detail = function (this: DiffHistory, id: string) {
      read++;
      return detail.call(this, id);
    };
    let history;
    try {
      history = await decodes(() => client2.call('diffs.get', { id: pending!.id }));
    } finally {
      DiffHistory.prototype.detail = detail;
    }
    assert.equal(history.count + read, 0, 'the history file was not decoded to be sent');
    assert.deepEqual(history.result, await reopened.call('diffs.get', { id: pending!.id }));
    assert.equal(history.result.oldContents, disk);
    assert.equal(history.result.finalContents, proposal);
    // Written as proposed: the answer on the wire carries the proposal once, not twice.
    const control = (await readControlFile(h.options.home))!;
    const ws = new WebSocket(`ws://127.0.0.1:${control.port}/api`, { headers: { authorization: `Bearer ${control.token}` } });
    await once(ws, 'open');
    // The hub's events come on the same socket: the answer is the frame with its id.
    const answer = new Promise<string>((resolve) =>
      ws.on('message', (data: Buffer) => {
        if ((JSON.parse(data.toString()) as { id?: unknown }).id === 1) resolve(data.toString());
      }),
    );
    ws.send(JSON.stringify({ id: 1, method: 'diffs.get', params: { id: pending!.id } }));
    const frame = await withTimeout(answer, WAIT_MS, 'the answer to diffs.get');
    ws.close();
    assert.equal(frame.split('export const changed').length - 1, 1, 'the proposal once in the frame');
    // ü and its kind as \u escapes: a browser's TextDecoder takes ASCII the fast way.
    assert.ok(!/[^\x00-\x7f]/.test(frame), 'the frame is all ASCII');
    assert.ok(frame.includes('\\u00fc'), 'with ü escaped');
  } finally {
    client2.close();
    await again.close();
    await reopened.close();
  }
});
