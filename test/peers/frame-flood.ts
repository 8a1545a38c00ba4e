/**
 * A hostile agent's crafted frames, from a process of their own (so the process timing the
 * daemon is not busy making and masking them): `count` connections to a door, each sends pi-ide's
 * `initialize`, then one openDiff of about `mb` MB, and waits for its answer.
 *   junk:  a small proposal plus an unknown argument of `{},{},…` (what a JSON parser turns into
 *          millions of objects);
 *   legit: a proposal of `mb` MB of source text.
 *
 * CLI: node --import tsx test/peers/frame-flood.ts --port N --token T --count N --mb N --shape junk|legit --folder F
 * stdout, one JSON line per connection once answered: {"agent":n,"ms":N,"texts":[…]|null,"error":…},
 * then {"done":true}.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { emit, isMain, startupFailed } from './cli.ts';
import { openSocket, RpcPeer, toolTexts } from './rpc-peer.ts';

export type FloodShape = 'junk' | 'legit';

/** One openDiff frame of about `mb` MB, built as bytes (no string of that size is made here). */
export function floodFrame(shape: FloodShape, mb: number, path: string, tab: string): Buffer {
  const size = Math.round(mb * 1024 * 1024);
  // Whole patterns only: a cut one would end the frame inside an escape or an object.
  const fill = (pattern: string): Buffer => Buffer.alloc(size - (size % pattern.length), pattern);
  const args = { old_file_path: path, new_file_path: path, tab_name: tab };
  const head = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"openDiff","arguments":${JSON.stringify(args).slice(0, -1)},`;
  if (shape === 'junk') {
    return Buffer.concat([Buffer.from(`${head}"new_file_contents":"hello\\n","extra":[`), fill('{},'), Buffer.from('{}]}}}')]);
  }
  return Buffer.concat([Buffer.from(`${head}"new_file_contents":"`), fill('let x = \\"a\\";\\n'), Buffer.from('"}}}')]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, token: { type: 'string' }, count: { type: 'string' }, mb: { type: 'string' }, shape: { type: 'string' }, folder: { type: 'string' } },
  });
  const shape = values.shape === 'legit' ? 'legit' : 'junk';
  const count = Number(values.count ?? 1);
  const mb = Number(values.mb ?? 1);
  const folder = values.folder ?? '/tmp';
  const agents = await Promise.all(
    Array.from({ length: count }, async () => {
      const ws = await openSocket(`ws://127.0.0.1:${values.port}`, { 'x-pi-ide-authorization': values.token ?? '' });
      const rpc = new RpcPeer(ws, {});
      await rpc.call('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'pi-ide', version: '0.1.0' } });
      return rpc;
    }),
  );
  const frames = agents.map((_, n) => floodFrame(shape, mb, join(folder, `flood${n}.txt`), `pi-write:flood${n}`));
  await Promise.all(
    agents.map(async (rpc, n) => {
      const started = Date.now();
      const answered = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          const answer = rpc.received.find((m) => m.id === 2 && m.method === undefined);
          if (!answer && rpc.isOpen) return;
          clearInterval(check);
          emit({ agent: n, ms: Date.now() - started, texts: answer ? toolTexts(answer.result) : null, error: answer?.error ?? (rpc.isOpen ? null : "closed") });
          resolve();
        }, 20);
      });
      rpc.ws.send(frames[n]!);
      await answered;
    }),
  );
  emit({ done: true });
  for (const rpc of agents) rpc.close();
}

if (isMain(import.meta.url)) main().catch(startupFailed);
