/**
 * A second session that notices stalls: a child process whose agent calls getDiagnostics every
 * few milliseconds (as a busy pi would before its model calls) while the benchmark pushes big
 * diffs through another session. In its own process, so the big frames the benchmark's agent
 * receives do not delay this one's clock. Or, the other way round, the session that keeps big
 * diffs passing while the benchmark's own clock measures something else (`diffs`).
 *
 * CLI: node --import tsx test/bench/poller.ts
 * stdout: {"ready":true,"pid":N}, then command results (test/peers/cli.ts protocol).
 * stdin:
 *   {"cmd":"connect","url":"ws://…","token":"…"}   → {} once initialized
 *   {"cmd":"start","intervalMs":N}                   → {}, and polls until collect
 *   {"cmd":"collect"}                                → {"samples":[ms…]}: the round trips since start; polling stops
 *   {"cmd":"diffs","path":"…","bytes":N}             → {}, and sends openDiffs of N bytes of code for
 *                                                      `path` back to back (each with its close_tab) until collect
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { emit, field, isMain, serveCommands, startupFailed } from '../peers/cli.ts';
import { BenchAgent } from './agent.ts';
import { diffRoundTrip, proposalOf } from './diff-trip.ts';

const CALL = JSON.stringify({ name: 'getDiagnostics', arguments: {} });

class Poller {
  private agent: BenchAgent | null = null;
  private running: Promise<number[]> | null = null;
  private stopping = false;

  async connect(url: string, token: string): Promise<void> {
    await this.agent?.close();
    this.agent = await BenchAgent.connect(url, token);
  }

  /** getDiagnostics every `intervalMs`; the samples are their round trips. */
  start(intervalMs: number): void {
    this.run(async (agent) => {
      const samples: number[] = [];
      let next = performance.now();
      while (!this.stopping) {
        const id = agent.reserveId();
        const t0 = performance.now();
        const response = await agent.sendRequest(id, `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${CALL}}`);
        if (response.error) throw new Error(`poller: getDiagnostics failed: ${response.error.message}`);
        samples.push(response.at - t0);
        // Every intervalMs from the start; a late answer is followed by the next call at once.
        next += intervalMs;
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        else next = performance.now();
      }
      return samples;
    });
  }

  /** openDiffs of `bytes` of code for `path`, back to back; the samples are their round trips. */
  diffs(path: string, bytes: number): void {
    const proposal = proposalOf(bytes);
    this.run(async (agent) => {
      const samples: number[] = [];
      while (!this.stopping) samples.push(await diffRoundTrip({ name: 'poller', agent }, path, proposal));
      return samples;
    });
  }

  /** Runs `loop` on the connected agent until collect; one loop at a time. */
  private run(loop: (agent: BenchAgent) => Promise<number[]>): void {
    const agent = this.agent;
    if (!agent) throw new Error('poller: connect first');
    if (this.running) throw new Error('poller: already running');
    this.stopping = false;
    this.running = loop(agent);
  }

  async collect(): Promise<number[]> {
    if (!this.running) throw new Error('poller: not polling');
    this.stopping = true;
    const samples = await this.running;
    this.running = null;
    return samples;
  }

  async close(): Promise<void> {
    this.stopping = true;
    await this.running?.catch(() => []);
    await this.agent?.close();
  }
}

async function main(): Promise<void> {
  const poller = new Poller();
  emit({ ready: true, pid: process.pid });
  serveCommands(
    {
      connect: (c) => poller.connect(field(c, 'url'), field(c, 'token')),
      start: (c) => {
        const interval = c.intervalMs;
        if (typeof interval !== 'number' || !(interval > 0)) throw new Error('start: "intervalMs" must be a positive number');
        poller.start(interval);
      },
      diffs: (c) => {
        const bytes = c.bytes;
        if (typeof bytes !== 'number' || !(bytes > 0)) throw new Error('diffs: "bytes" must be a positive number');
        poller.diffs(field(c, 'path'), bytes);
      },
      collect: async () => ({ samples: await poller.collect() }),
    },
    () => poller.close(),
  );
}

if (isMain(import.meta.url)) main().catch(startupFailed);
