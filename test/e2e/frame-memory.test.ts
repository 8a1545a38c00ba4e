// What a frame costs the real daemon to take in (DESIGN §10): at most a few times its size,
// whatever it holds. 60 MB of `{},{},…` in an openDiff's unknown argument took a daemon from 61
// MiB to 1.66 GiB and stopped it answering; five such frames ran it out of heap, losing every
// pending diff. A correctness bound with generous margins, not a speed target.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { connectControl } from '../../src/web/control-client.ts';
import { e2eFolder, startDaemon, type Daemon, type Env } from './daemon-process.ts';

const FLOOD = fileURLToPath(new URL('../peers/frame-flood.ts', import.meta.url));
const MiB = 1024 * 1024;

/** A field of /proc/<pid>/status, in bytes (VmRSS: now; VmHWM: the peak since the last reset). */
async function procKb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** The door's address for pi agents, from its lockfile. */
async function door(env: Env): Promise<{ port: number; token: string }> {
  for (const name of await readdir(env.piLockDir)) {
    if (!name.endsWith('.lock')) continue;
    const lock = JSON.parse(await readFile(join(env.piLockDir, name), 'utf8')) as { ideName?: string; authToken: string };
    if (lock.ideName === 'Patchbay') return { port: Number(name.slice(0, -'.lock'.length)), token: lock.authToken };
  }
  throw new Error(`no door lockfile in ${env.piLockDir}`);
}

interface FloodResult {
  answers: { agent: number; ms: number; texts: string[] | null; error: unknown }[];
  /** The longest a snapshot over the control server took while the frames arrived. */
  slowestStatusMs: number;
  /** The daemon's peak RSS over its RSS before the frames. */
  peakGrowth: number;
}

/** Runs the frame-flood child against a door; resolves with its answer lines once it is done. */
function runFlood(t: TestContext, port: number, token: string, args: { shape: 'junk' | 'legit'; count: number; mb: number; folder: string }): Promise<FloodResult['answers']> {
  const child = spawn(process.execPath, ['--import', 'tsx', FLOOD, '--port', String(port), '--token', token, '--count', String(args.count), '--mb', String(args.mb), '--shape', args.shape, '--folder', args.folder], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => void (child.exitCode === null && child.kill('SIGKILL')));
  const answers: FloodResult['answers'] = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const value = JSON.parse(line) as Record<string, unknown>;
      if (value.done) resolve(answers);
      else answers.push(value as unknown as FloodResult['answers'][number]);
    });
    child.once('exit', (code) => (code === 0 ? resolve(answers) : reject(new Error(`frame-flood exited with ${code}`))));
  });
}

/**
 * A WebSocket server with no logic (the same `ws`, in a process of its own as the daemon is):
 * answers every frame, and prints the longest its event loop stopped, once `stop` comes on stdin.
 */
const BARE_SERVER = `
const { WebSocketServer } = require('ws');
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * 1024 * 1024, perMessageDeflate: false });
server.on('listening', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
server.on('connection', (ws) => ws.on('message', (data) => {
  const id = data.length < 4096 ? JSON.parse(data.toString()).id : 2;
  ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } }));
}));
let longest = 0, last = Date.now();
setInterval(() => { const now = Date.now(); longest = Math.max(longest, now - last); last = now; }, 20);
process.stdin.on('data', () => { process.stdout.write(JSON.stringify({ longest }) + '\\n'); process.exit(0); });
`;

/**
 * The longest a bare WebSocket server stops while it takes in the same frames: what receiving
 * them costs on this machine, now, before any of Patchbay's work (ws copies, unmasks and checks
 * each 50 MB frame itself, which on a busy machine takes seconds).
 */
async function transportStall(t: TestContext, count: number, mb: number, folder: string): Promise<number> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => void (child.exitCode === null && child.kill('SIGKILL')));
  const lines = createInterface({ input: child.stdout! });
  const next = async (): Promise<Record<string, number>> => JSON.parse((await once(lines, 'line'))[0] as string) as Record<string, number>;
  const { port } = await next();
  await runFlood(t, port!, 'none', { shape: 'junk', count, mb, folder });
  child.stdin!.write('stop\n');
  return (await next()).longest!;
}

async function flood(t: TestContext, shape: 'junk' | 'legit', count: number, mb: number): Promise<FloodResult> {
  const { tmp, env, project } = await e2eFolder('frame-memory');
  let daemon: Daemon | undefined;
  t.after(async () => {
    await daemon?.stop('SIGKILL');
    await tmp.cleanup();
  });
  daemon = await startDaemon(env);
  const pid = daemon.child.pid!;
  const { port, token } = await door(env);
  const control = await connectControl(env.env.PATCHBAY_HOME!);
  t.after(() => control.close());
  await control.call('snapshot', undefined);
  await new Promise((resolve) => setTimeout(resolve, 500)); // start-up's garbage settles
  await writeFile(`/proc/${pid}/clear_refs`, '5'); // the peak (VmHWM) starts again from now
  const before = await procKb(pid, 'VmRSS');

  const done = runFlood(t, port, token, { shape, count, mb, folder: project });
  // Snapshots one after another until the frames are answered; a snapshot stuck counts while it waits.
  let slowest = 0;
  let asking = 0;
  let flooding = true;
  const watch = setInterval(() => (slowest = Math.max(slowest, asking === 0 ? 0 : Date.now() - asking)), 50);
  const poll = (async () => {
    while (flooding) {
      asking = Date.now();
      await control.call('snapshot', undefined);
      slowest = Math.max(slowest, Date.now() - asking);
      asking = 0;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  let answers: FloodResult['answers'];
  try {
    answers = await done;
  } finally {
    flooding = false;
    clearInterval(watch);
  }
  await poll;
  return { answers, slowestStatusMs: slowest, peakGrowth: (await procKb(pid, 'VmHWM')) - before };
}

const skip = process.platform === 'linux' ? false : 'reads the daemon’s peak memory from /proc';

test('one 20 MB openDiff with an argument of `{},{},…` is rejected unread, saying why, and costs the daemon about its size', { skip, timeout: 120_000 }, async (t) => {
  const result = await flood(t, 'junk', 1, 20);
  assert.equal(result.answers.length, 1);
  const [texts] = result.answers.map((a) => a.texts);
  assert.equal(texts?.[0], 'DIFF_REJECTED', `a decision, never an error (pi-ide would write the file unreviewed): ${JSON.stringify(result.answers[0])}`);
  assert.equal(texts?.[1], 'pi-write:flood0');
  assert.match(texts?.[2] ?? '', /Patchbay: a frame of 20\.0 MiB holding so many JSON values .* is not read/);
  t.diagnostic(`peak RSS growth ${(result.peakGrowth / MiB).toFixed(0)} MiB for a 20 MiB frame; slowest status ${result.slowestStatusMs} ms`);
  assert.ok(result.peakGrowth <= 3 * 20 * MiB, `peak RSS grew by ${(result.peakGrowth / MiB).toFixed(0)} MiB for a 20 MiB frame`);
});

test('five 50 MB crafted frames at once: each rejected, the daemon’s memory stays a few times theirs, and status answers within 2 s beyond what ws itself stops for', { skip, timeout: 300_000 }, async (t) => {
  // On a busy machine ws alone stops for seconds taking 250 MB in: Patchbay has 2 s on top of twice that.
  const floor = await transportStall(t, 5, 50, tmpdir());
  const result = await flood(t, 'junk', 5, 50);
  assert.equal(result.answers.length, 5);
  for (const answer of result.answers) assert.deepEqual(answer.texts?.slice(0, 2), ['DIFF_REJECTED', `pi-write:flood${answer.agent}`], JSON.stringify(answer));
  t.diagnostic(`peak RSS growth ${(result.peakGrowth / MiB).toFixed(0)} MiB for 250 MiB of frames; slowest status ${result.slowestStatusMs} ms; a bare ws server stopped for ${floor} ms at most taking them in`);
  assert.ok(result.slowestStatusMs < 2000 + 2 * floor, `a status took ${result.slowestStatusMs} ms (a bare ws server stopped for ${floor} ms)`);
  assert.ok(result.peakGrowth <= 3 * 250 * MiB, `peak RSS grew by ${(result.peakGrowth / MiB).toFixed(0)} MiB for 250 MiB of frames`);
});
