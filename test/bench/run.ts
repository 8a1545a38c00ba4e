/**
 * `npm run bench`: Patchbay against a bare relay (test/bench/bare-relay.ts) measured in the same
 * run on this machine, as issue 2 asks. Prints one table; `--json` prints the results as JSON.
 * Targets are reported, not enforced: the exit code is 0 unless the benchmark itself broke.
 *
 * Processes: the relay under test (the real `patchbay daemon`, or the bare relay) is a child;
 * the editors (lean-editor.ts, answers serialised ahead of time) live in another child
 * (editor-host.ts); the measuring agents (agent.ts: requests serialised ahead of time, big
 * answers timed on arrival and never decoded) live here, and the second session that notices
 * stalls in a child of its own (poller.ts). Everything is on 127.0.0.1 and is stopped by pid at
 * the end. Relay CPU is the relay process's own run time (schedstat of each of its threads).
 *
 * Options:
 *   --json                 results as JSON on stdout (progress stays on stderr)
 *   --only a,b             a subset of: latency, throughput, rounds, diff, stall, burst, lockfile,
 *                          idle, restart, memory, ui (rounds: the latency, throughput and diff phases
 *                          back to back, round after round; idle: each relay's CPU with its editors
 *                          and sessions connected and no traffic; ui: the review's views in Chromium
 *                          against the daemon's UI, ui-views.ts)
 *   --runs N               N runs (default 1), each with its relays started afresh: the table then
 *                          shows each side's median, the median of the runs' ratios, their spread,
 *                          and how many runs met the target (each run's own table goes to stderr)
 *   --profile DIR          CPU-profile each relay phase in both relays; Patchbay then runs as the
 *                          hub alone (hub-child.ts) rather than the daemon; the ui views' last
 *                          tries profile the page (ui-cold, ui-big, ui-history). Summarize a
 *                          profile with test/bench/profile-summary.ts.
 *   --node-flags=FLAGS     node flags both relays run under, the same for both (e.g.
 *                          "--node-flags=--trace-gc"; the = is needed for a value starting with -)
 *   --bare-heap-mb N       a diagnostic: the bare relay also keeps N MB of inert objects, as big a
 *                          heap as Patchbay's (see bare-relay.ts); not a baseline for the targets
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { writeLockfile } from '../peers/lockfiles.ts';
import { tempDir, waitFor, withTimeout } from '../peers/wait.ts';
import { BenchAgent, type Response } from './agent.ts';
import { Child, cpuMillis as ownCpuMillis, treeCpuMillis as cpuMillis, treeResidentBytes as residentBytes, residentBytes as ownResidentBytes } from './child.ts';
import { HubChild, PatchbayDaemon, type PatchbayProcess } from './daemon.ts';
import type { HostedEditor } from './editor-host.ts';
import { diffRoundTrip, PROPOSAL_SEED, proposalOf, type Proposal } from './diff-trip.ts';
import { sourceText } from './source-text.ts';
import { measureUiViews } from './ui-views.ts';
import { formatSummary, formatTable, judge, median, percentile, spreadOf, summarize, type Measurement, type Row } from './report.ts';

const MiB = 1024 * 1024;

/** Sized so the whole run stays well under two minutes on 2 cores. */
const PLAN = {
  latencyWarmup: 1000,
  latencyCalls: 10_000,
  burstWarmup: 2000,
  burstCount: 20_000,
  burstRounds: 5,
  diffBytes: 10 * MiB,
  diffRounds: 7,
  stallRounds: 3,
  stallDiffs: 5,
  stallIntervalMs: 5,
  burstDiffs: 30,
  lockfileRuns: 15,
  idleMs: 20_000,
  idleSettleMs: 15_000,
  memoryEditors: 50,
  memorySessions: 200,
  // The phases back to back (issue 31), as an agent's traffic meets them: each round's calls
  // start right after the last round's big diffs. A warm-up round, then these rounds.
  rounds: 3,
  roundCalls: 3000,
  roundBlock: 100,
  roundSelections: 20_000,
  roundDiffs: 5,
};

const METRICS = ['latency', 'throughput', 'rounds', 'diff', 'stall', 'burst', 'lockfile', 'idle', 'restart', 'memory', 'ui'] as const;
type Metric = (typeof METRICS)[number];

const started = performance.now();
function progress(message: string): void {
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}\n`);
}

/** Closers run in reverse order of registration; each runs once even if another fails. */
class Owned {
  private readonly closers: { what: string; close: () => Promise<unknown> }[] = [];
  add<T>(what: string, value: T, close: (value: T) => Promise<unknown>): T {
    this.closers.push({ what, close: () => close(value) });
    return value;
  }
  async closeAll(): Promise<string[]> {
    const problems: string[] = [];
    const closers = this.closers.splice(0).reverse();
    for (const { what, close } of closers) {
      try {
        await close();
      } catch (err) {
        problems.push(`closing ${what}: ${(err as Error).message}`);
      }
    }
    return problems;
  }
}

// ── children ───────────────────────────────────────────────────────────────

async function startEditorHost(owned: Owned): Promise<Child> {
  const host = owned.add('editor host', Child.spawn({ label: 'editor host', args: ['--import', 'tsx', 'test/bench/editor-host.ts'] }), (c) => c.close());
  await host.waitForLine((l) => l.ready === true, 20_000, 'ready line');
  return host;
}

/** Node flags both relays run under (--node-flags): the same for both, or the comparison is not fair. */
let relayFlags: string[] = [];
/** MB of inert objects the bare relay keeps (--bare-heap-mb); 0 for the real baseline. */
let bareHeapMb = 0;

async function startBareRelay(owned: Owned, editor: HostedEditor | null): Promise<{ child: Child; port: number }> {
  const args = [...relayFlags, '--import', 'tsx', 'test/bench/bare-relay.ts', ...(editor ? ['--editor-port', String(editor.port), '--editor-token', editor.token] : []), ...(bareHeapMb > 0 ? ['--heap-mb', String(bareHeapMb)] : [])];
  const child = owned.add('bare relay', Child.spawn({ label: 'bare relay', args }), (c) => c.close());
  const ready = await child.waitForLine((l) => l.ready === true, 20_000, 'ready line');
  return { child, port: Number(ready.port) };
}

/** A daemon that did not stop cleanly on SIGTERM is worth a line in the report. */
function ownPatchbay<T extends PatchbayProcess>(owned: Owned, patchbay: T): T {
  return owned.add(patchbay.child.options.label, patchbay, async (p) => {
    const { code, signal } = await p.close();
    if (code !== 0) throw new Error(`${p.child.options.label} (pid ${p.child.pid}) stopped with code ${code}, signal ${signal}: ${p.child.stderr().trim().slice(-500)}`);
  });
}

async function startEditor(host: Child, options: { lockDir: string; folder: string; dialect?: 'pi' | 'claude'; writeLockfile?: boolean }): Promise<HostedEditor> {
  await mkdir(options.folder, { recursive: true });
  return (await host.command({ cmd: 'start', ...options }, 20_000)) as HostedEditor;
}

async function connectAgents(url: (i: number) => string, token: string, count: number, owned: Owned): Promise<BenchAgent[]> {
  const agents: BenchAgent[] = [];
  // In batches: hundreds of simultaneous upgrades would measure the accept queue, not the relay.
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => BenchAgent.connect(url(i + j), token)));
    for (const agent of batch) agents.push(owned.add('agent', agent, (a) => a.close()));
  }
  return agents;
}

// ── checks ─────────────────────────────────────────────────────────────────

function texts(response: Response): string[] {
  const content = (response.result as { content?: { text?: unknown }[] } | undefined)?.content;
  return Array.isArray(content) ? content.map((c) => (typeof c.text === 'string' ? c.text : '')) : [];
}

/** The editor's diagnostics made it through (an empty answer would mean a deadline fired); returns its folder. */
function diagnosticsFolder(response: Response, via: string): string {
  const match = /"file:\/\/(.*)\/src\/main\.ts"/.exec(texts(response)[0] ?? '');
  if (response.error || !match) throw new Error(`getDiagnostics through ${via} did not carry the editor's answer: ${JSON.stringify(response).slice(0, 300)}`);
  return match[1]!;
}

// ── measurements ───────────────────────────────────────────────────────────

interface Pair {
  name: 'bare' | 'patchbay';
  agent: BenchAgent;
  /** The relay's process, whose CPU time is counted. */
  pid: number;
}

/**
 * Runs `work` and adds the relay's CPU time spent meanwhile to `cpu[pair.name]`; `settleMs` of
 * idle first lets work the relay does after answering (a history entry) land in this count.
 */
async function counted<T>(pair: Pair, cpu: Record<string, number>, work: () => Promise<T>, settleMs = 0): Promise<T> {
  const [before, ownBefore] = await Promise.all([cpuMillis(pair.pid), ownCpuMillis(pair.pid)]);
  const result = await work();
  if (settleMs > 0) await sleep(settleMs);
  const [after, ownAfter] = await Promise.all([cpuMillis(pair.pid), ownCpuMillis(pair.pid)]);
  cpu[pair.name] = (cpu[pair.name] ?? 0) + after - before;
  // The relay's own process apart from its children: Patchbay's keeper.
  cpu[`${pair.name}:own`] = (cpu[`${pair.name}:own`] ?? 0) + ownAfter - ownBefore;
  return result;
}

function cpuNote(cpu: Record<string, number>, count: number, what: string, unit: 'µs' | 'ms'): string {
  const each = (name: string): string => `${(((cpu[name] ?? 0) / count) * (unit === 'µs' ? 1000 : 1)).toFixed(1)} ${unit}`;
  return `relay CPU per ${what}: bare ${each('bare')}, Patchbay ${each('patchbay')}`;
}

/** A round-trip percentile of both relays' samples (`p` 100: the longest), judged as a ratio. */
function percentileRow(metric: string, samples: ReadonlyMap<string, number[]>, p: number, max: number, note: string): Measurement {
  return { metric, unit: 'ms', bare: percentile(samples.get('bare')!, p), patchbay: percentile(samples.get('patchbay')!, p), target: { kind: 'ratio-max', max }, note };
}

/** Alternating order per round, so drift on the machine hits both relays alike. */
function inRound(pairs: Pair[], round: number): Pair[] {
  return round % 2 === 0 ? pairs : [...pairs].reverse();
}

const DIAGNOSTICS_CALL = { name: 'getDiagnostics', arguments: {} };
const DIAGNOSTICS_PARAMS = JSON.stringify(DIAGNOSTICS_CALL);

/** One getDiagnostics call, serialised before the clock starts; its wall time. The editor's answer is checked on the first and last. */
async function roundTrip(pair: Pair, check: boolean): Promise<number> {
  const id = pair.agent.reserveId();
  const text = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${DIAGNOSTICS_PARAMS}}`;
  const t0 = performance.now();
  const response = await pair.agent.sendRequest(id, text);
  const elapsed = response.at - t0;
  if (check) diagnosticsFolder(response, pair.name);
  return elapsed;
}

async function measureLatency(pairs: Pair[]): Promise<Measurement[]> {
  for (const pair of pairs) for (let i = 0; i < PLAN.latencyWarmup; i++) await roundTrip(pair, i === 0);
  const n = PLAN.latencyCalls;
  const samples = new Map<string, number[]>(pairs.map((p) => [p.name, []]));
  // Interleaved call by call, so a busy moment on the machine hits both relays alike. Only one
  // relay works at a time, so each one's CPU time over the whole loop is its own calls' cost.
  const cpuBefore = await Promise.all(pairs.map((p) => cpuMillis(p.pid)));
  for (let i = 0; i < n; i++) {
    for (const pair of inRound(pairs, i)) samples.get(pair.name)!.push(await roundTrip(pair, i === n - 1));
  }
  const cpuAfter = await Promise.all(pairs.map((p) => cpuMillis(p.pid)));
  const cpu = Object.fromEntries(pairs.map((p, i) => [p.name, cpuAfter[i]! - cpuBefore[i]!]));
  return [
    percentileRow('getDiagnostics round trip p50', samples, 50, 1.2, `${n} sequential calls each, interleaved, after ${PLAN.latencyWarmup} warm-up; ${cpuNote(cpu, n, 'call', 'µs')}`),
    percentileRow('getDiagnostics round trip p99', samples, 99, 1.5, 'the same calls'),
  ];
}

async function burstRate(pair: Pair, host: Child, editorKey: number, count: number): Promise<{ rate: number; frames: number }> {
  const arrived = pair.agent.expect('selection_changed', count);
  const t0 = performance.now();
  const sent = host.command({ cmd: 'burst', key: editorKey, count }, 60_000) as Promise<{ frames: number }>;
  let t1: number;
  try {
    t1 = await withTimeout(arrived, 30_000, `${count} selection_changed through ${pair.name}`);
  } catch (err) {
    pair.agent.cancelExpectation();
    throw new Error(`${(err as Error).message} (${pair.agent.received('selection_changed')} arrived)`);
  }
  const { frames } = await sent;
  return { rate: count / ((t1 - t0) / 1000), frames };
}

async function measureThroughput(pairs: Pair[], host: Child, keys: Record<Pair['name'], number>): Promise<Measurement> {
  for (const pair of pairs) await burstRate(pair, host, keys[pair.name], PLAN.burstWarmup);
  const rates = new Map<string, number[]>(pairs.map((p) => [p.name, []]));
  const frames = new Map<string, number>();
  const cpu: Record<string, number> = {};
  for (let round = 0; round < PLAN.burstRounds; round++) {
    for (const pair of inRound(pairs, round)) {
      const r = await counted(pair, cpu, () => burstRate(pair, host, keys[pair.name], PLAN.burstCount));
      rates.get(pair.name)!.push(r.rate);
      frames.set(pair.name, r.frames);
    }
  }
  const perBurst = (name: string): number => (frames.get(name) ?? 0) / PLAN.burstCount;
  return {
    metric: 'selection_changed throughput',
    unit: 'msg/s',
    bare: median(rates.get('bare')!),
    patchbay: median(rates.get('patchbay')!),
    target: { kind: 'ratio-min', min: 0.8 },
    note: `${PLAN.burstCount.toLocaleString('en-US')} notifications per burst, median of ${PLAN.burstRounds}, timed from the burst command to the last arrival; the editor writes each to ${perBurst('patchbay')} Patchbay connection(s) vs ${perBurst('bare')} bare; ${cpuNote(cpu, PLAN.burstRounds * PLAN.burstCount, 'notification', 'µs')}`,
  };
}

// ── big diffs ──────────────────────────────────────────────────────────────

/** One kind of big diff: through which agents (to which editors), to a file that exists or not. */
interface DiffCase {
  what: string;
  pairs: Pair[];
  path: string;
}

async function measureDiffCase(c: DiffCase, proposal: Proposal): Promise<Measurement[]> {
  for (const pair of c.pairs) await diffRoundTrip(pair, c.path, proposal);
  const times = new Map<string, number[]>(c.pairs.map((p) => [p.name, []]));
  const cpu: Record<string, number> = {};
  for (let round = 0; round < PLAN.diffRounds; round++) {
    for (const pair of inRound(c.pairs, round)) times.get(pair.name)!.push(await counted(pair, cpu, () => diffRoundTrip(pair, c.path, proposal), 50));
  }
  const perDiff = (name: string): number => (cpu[name] ?? 0) / PLAN.diffRounds;
  const spread = (name: string): string => `${Math.min(...times.get(name)!).toFixed(0)}–${Math.max(...times.get(name)!).toFixed(0)}`;
  return [
    {
      metric: `10 MiB openDiff round trip, ${c.what}`,
      unit: 'ms',
      bare: median(times.get('bare')!),
      patchbay: median(times.get('patchbay')!),
      target: { kind: 'ratio-max', max: 1.3 },
      note: `median of ${PLAN.diffRounds} after 1 warm-up, alternating (bare ${spread('bare')} ms, Patchbay ${spread('patchbay')} ms); the answer timed on arrival, undecoded`,
    },
    {
      metric: `relay CPU per 10 MiB diff, ${c.what}`,
      unit: 'ms',
      bare: perDiff('bare'),
      patchbay: perDiff('patchbay'),
      target: { kind: 'ratio-max', max: 1.5 },
      note: `the relay's run time (Patchbay: its keeper and its core) over the ${PLAN.diffRounds} round trips (each with its close_tab and 50 ms to settle), divided by ${PLAN.diffRounds}; Patchbay's keeper alone ${((cpu['patchbay:own'] ?? 0) / PLAN.diffRounds).toFixed(1)} ms`,
    },
  ];
}

async function measureDiffs(rig: Rig, proposal: Proposal): Promise<Measurement[]> {
  const rows: Measurement[] = [];
  const cases: DiffCase[] = [
    { what: 'new file', pairs: rig.pi, path: join(rig.folder, 'new.ts') },
    { what: 'existing file', pairs: rig.pi, path: rig.existing },
    { what: 'new file, pi → Claude-dialect editor', pairs: rig.claude, path: join(rig.folder, 'new.ts') },
    { what: 'existing file, pi → Claude-dialect editor', pairs: rig.claude, path: rig.existing },
  ];
  for (const c of cases) {
    progress(`10 MiB openDiff: ${c.what}`);
    rows.push(...(await measureDiffCase(c, proposal)));
  }
  return rows;
}

/** Each relay's CPU time (its whole process tree) spent while `work` runs: both relays are read before and after. */
async function phaseCpu<T>(pairs: Pair[], cpu: Record<string, number[]>, work: () => Promise<T>): Promise<T> {
  const before = await Promise.all(pairs.map((p) => cpuMillis(p.pid)));
  const result = await work();
  const after = await Promise.all(pairs.map((p) => cpuMillis(p.pid)));
  pairs.forEach((p, i) => (cpu[p.name] ??= []).push(after[i]! - before[i]!));
  return result;
}

/** What one round of the back-to-back order measured, per relay. */
interface RoundResult {
  p50: number;
  p99: number;
  /** The slowest call, and how long after its phase started it was sent (ms). */
  slowest: { ms: number; at: number };
  rate: number;
  diff: number;
}

/**
 * One round back to back: `roundCalls` getDiagnostics a relay, one at a time in blocks of
 * `roundBlock` alternating between the relays; then a burst of `roundSelections`
 * selection_changed from each relay's editor; then `roundDiffs` 10 MiB openDiffs a relay,
 * alternating. No pause between the phases, nor before the next round's calls.
 */
async function backToBackRound(rig: Rig, host: Child, keys: Record<Pair['name'], number>, proposal: Proposal, round: number, cpu: Record<string, Record<string, number[]>>): Promise<Record<string, RoundResult>> {
  const pairs = rig.pi;
  const samples = new Map<string, { ms: number; at: number }[]>(pairs.map((p) => [p.name, []]));
  await phaseCpu(pairs, (cpu.calls ??= {}), async () => {
    const t0 = performance.now();
    for (let block = 0; block < PLAN.roundCalls / PLAN.roundBlock; block++) {
      for (const pair of inRound(pairs, block)) {
        for (let i = 0; i < PLAN.roundBlock; i++) {
          const at = performance.now() - t0;
          samples.get(pair.name)!.push({ ms: await roundTrip(pair, i === 0 && block < 2), at });
        }
      }
    }
  });
  const rates = new Map<string, number>();
  await phaseCpu(pairs, (cpu.selections ??= {}), async () => {
    for (const pair of inRound(pairs, round)) rates.set(pair.name, (await burstRate(pair, host, keys[pair.name], PLAN.roundSelections)).rate);
  });
  const diffs = new Map<string, number[]>(pairs.map((p) => [p.name, []]));
  const path = join(rig.folder, 'new.ts');
  await phaseCpu(pairs, (cpu.diffs ??= {}), async () => {
    for (let i = 0; i < PLAN.roundDiffs; i++) for (const pair of inRound(pairs, i)) diffs.get(pair.name)!.push(await diffRoundTrip(pair, path, proposal));
  });
  return Object.fromEntries(
    pairs.map((p) => {
      const ms = samples.get(p.name)!.map((s) => s.ms);
      const slowest = samples.get(p.name)!.reduce((a, b) => (b.ms > a.ms ? b : a));
      return [p.name, { p50: percentile(ms, 50), p99: percentile(ms, 99), slowest, rate: rates.get(p.name)!, diff: median(diffs.get(p.name)!) }];
    }),
  );
}

/**
 * The phases back to back (issue 31): what an agent meets when its calls follow big edits, as
 * pi-ide's getDiagnostics before every model call follows the openDiffs of the turn before.
 * A warm-up round, then `rounds` rounds; each row is the median over the rounds of each relay.
 */
async function measureRounds(rig: Rig, host: Child, keys: Record<Pair['name'], number>, proposal: Proposal): Promise<Measurement[]> {
  await backToBackRound(rig, host, keys, proposal, 0, {});
  const results: Record<string, RoundResult>[] = [];
  const cpu: Record<string, Record<string, number[]>> = {};
  for (let round = 1; round <= PLAN.rounds; round++) {
    progress(`back to back: round ${round} of ${PLAN.rounds}`);
    const result = await backToBackRound(rig, host, keys, proposal, round, cpu);
    results.push(result);
    // Each round's own ratios, so a median that misses shows which rounds made it.
    const ratio = (value: (r: RoundResult) => number): string => `${(value(result.patchbay!) / value(result.bare!)).toFixed(2)}×`;
    progress(`back to back: round ${round}: getDiagnostics p50 ${ratio((r) => r.p50)}, p99 ${ratio((r) => r.p99)}, 10 MiB openDiff ${ratio((r) => r.diff)}`);
  }
  const side = (name: string, value: (r: RoundResult) => number): number => median(results.map((r) => value(r[name]!)));
  const row = (metric: string, unit: string, value: (r: RoundResult) => number, target: Measurement['target'], note: string): Measurement => ({
    metric: `back to back: ${metric}`,
    unit,
    bare: side('bare', value),
    patchbay: side('patchbay', value),
    target,
    note,
  });
  // Per operation: the median over the rounds of each relay's CPU time in the phase (a collection in it counts).
  const cpuOf = (phase: string, count: number, what: string): string => {
    const each = (name: string): string => `${((median(cpu[phase]![name]!) / count) * 1000).toFixed(1)} µs`;
    return `relay CPU per ${what}: bare ${each('bare')}, Patchbay ${each('patchbay')}`;
  };
  const slowest = (name: string): string => results.map((r) => `${r[name]!.slowest.ms.toFixed(1)} ms at ${(r[name]!.slowest.at / 1000).toFixed(2)} s`).join(', ');
  const rounds = `median of ${PLAN.rounds} rounds after a warm-up round`;
  return [
    row('getDiagnostics p50', 'ms', (r) => r.p50, { kind: 'ratio-max', max: 1.2 }, `${PLAN.roundCalls} calls a relay per round, one at a time in blocks of ${PLAN.roundBlock} alternating, right after the round before's diffs; ${rounds}; ${cpuOf('calls', PLAN.roundCalls, 'call')}`),
    row('getDiagnostics p99', 'ms', (r) => r.p99, { kind: 'ratio-max', max: 1.5 }, `the same calls; the slowest per round (when in the phase it was sent): bare ${slowest('bare')}; Patchbay ${slowest('patchbay')}`),
    row('selection_changed throughput', 'msg/s', (r) => r.rate, { kind: 'ratio-min', min: 0.8 }, `one burst of ${PLAN.roundSelections.toLocaleString('en-US')} a relay per round, right after the calls; ${rounds}; ${cpuOf('selections', PLAN.roundSelections, 'notification')}`),
    row('10 MiB openDiff round trip', 'ms', (r) => r.diff, { kind: 'ratio-max', max: 1.3 }, `${PLAN.roundDiffs} a relay per round (new file, alternating, each with its close_tab), right after the bursts; the median of each round's, ${rounds}`),
    {
      metric: 'back to back: relay CPU per 10 MiB diff',
      unit: 'ms',
      bare: median(cpu.diffs!.bare!) / PLAN.roundDiffs,
      patchbay: median(cpu.diffs!.patchbay!) / PLAN.roundDiffs,
      target: { kind: 'ratio-max', max: 1.5 },
      note: `each relay's run time over a round's diff phase (Patchbay: keeper and core), divided by ${PLAN.roundDiffs}; ${rounds}; work after the last diff's answer falls in the next round`,
    },
  ];
}

/**
 * A second session's getDiagnostics every few ms while 10 MiB diffs pass through the first:
 * what every other agent on Patchbay waits while one big edit goes by.
 */
async function measureStall(rig: Rig, proposal: Proposal): Promise<Measurement[]> {
  const samples = new Map<string, number[]>(rig.pi.map((p) => [p.name, []]));
  for (let round = 0; round < PLAN.stallRounds; round++) {
    for (const pair of inRound(rig.pi, round)) {
      const poller = rig.pollers[pair.name];
      await poller.command({ cmd: 'start', intervalMs: PLAN.stallIntervalMs });
      for (let i = 0; i < PLAN.stallDiffs; i++) await diffRoundTrip(pair, rig.existing, proposal);
      const { samples: got } = (await poller.command({ cmd: 'collect' }, 30_000)) as { samples: number[] };
      samples.get(pair.name)!.push(...got);
    }
  }
  const bare = samples.get('bare')!;
  const pb = samples.get('patchbay')!;
  const calls = `${bare.length} calls bare, ${pb.length} Patchbay; p50 bare ${percentile(bare, 50).toFixed(2)} ms, Patchbay ${percentile(pb, 50).toFixed(2)} ms`;
  return [
    percentileRow("second session's getDiagnostics p99 during 10 MiB diffs", samples, 99, 2, `a call every ${PLAN.stallIntervalMs} ms from another process while ${PLAN.stallDiffs} diffs pass back to back, ${PLAN.stallRounds} rounds alternating (${calls})`),
    percentileRow("second session's getDiagnostics max during 10 MiB diffs", samples, 100, 2, 'the same calls: the longest one waited'),
  ];
}

/**
 * The daemon's RSS once a burst of big diffs has been decided, against what it was before:
 * nothing of them may stay held. Sampled for a while after: V8 gives its grown young
 * generation back, and glibc its arenas, some seconds after the traffic stops, not at once.
 */
async function measureBurst(rig: Rig, proposal: Proposal): Promise<Measurement> {
  const pair = rig.pi.find((p) => p.name === 'patchbay')!;
  const bare = rig.pi.find((p) => p.name === 'bare')!;
  // Where it started: settled the same way, after the phases before this one.
  const before = await settledRss([pair.pid, bare.pid]);
  for (let i = 0; i < PLAN.burstDiffs; i++) for (const p of inRound(rig.pi, i)) await diffRoundTrip(p, rig.existing, proposal);
  const after = await settledRss([pair.pid, bare.pid]);
  const mib = (n: number): string => (n / MiB).toFixed(0);
  const growth = (i: number): number => (Math.min(...after[i]!) - Math.min(...before[i]!)) / MiB;
  const story = (i: number): string => `${mib(Math.min(...before[i]!))} → ${mib(after[i]![0]!)} (just after) → lowest ${mib(Math.min(...after[i]!))}, last ${mib(after[i]!.at(-1)!)} MiB`;
  return {
    metric: `RSS growth after ${PLAN.burstDiffs} 10 MiB diffs`,
    unit: 'MiB',
    bare: growth(1),
    patchbay: growth(0),
    target: { kind: 'value-max', max: 20 },
    note: `the lowest VmRSS within ${SETTLE_MS / 1000} s after the last of ${PLAN.burstDiffs} diffs (existing file) was decided, minus the lowest within ${SETTLE_MS / 1000} s before them: Patchbay ${story(0)}; bare ${story(1)}`,
  };
}

/** VmRSS of each process every SAMPLE_MS for SETTLE_MS, from now. */
async function settledRss(pids: number[]): Promise<number[][]> {
  const samples: number[][] = pids.map(() => []);
  for (let waited = 0; waited < SETTLE_MS; waited += SAMPLE_MS) {
    const now = await Promise.all(pids.map((pid) => residentBytes(pid)));
    now.forEach((rss, i) => samples[i]!.push(rss));
    await sleep(SAMPLE_MS);
  }
  return samples;
}

/** How long the daemon is watched after a burst, and how often. */
const SETTLE_MS = 10_000;
const SAMPLE_MS = 250;

/** Work kept going while a row is measured: started before, stopped after (saying how much was done). */
interface Load {
  what: string;
  start(): Promise<void>;
  stop(): Promise<number>;
}

/**
 * Lockfile written → listed in the snapshot (what `patchbay status` prints), `lockfileRuns`
 * times: the median and the slowest. Each new editor listens in `host`, a process of its own as
 * a real editor is (not the one answering the big diffs). `load`, when given, runs meanwhile,
 * from another process than this clock, and the rows say so.
 */
async function measureLockfileToStatus(patchbay: PatchbayProcess, host: Child, root: string, load?: Load): Promise<Measurement[]> {
  const times: number[] = [];
  await load?.start();
  let done = 0;
  try {
    for (let i = 0; i < PLAN.lockfileRuns; i++) {
      const folder = join(root, `fresh-${load ? 'loaded-' : ''}${i}`);
      // The editor listens first and its lockfile is written here, so the clock starts at the write.
      const editor = await startEditor(host, { lockDir: patchbay.dirs.piLockDir, folder, writeLockfile: false });
      const t0 = performance.now();
      await writeLockfile(patchbay.dirs.piLockDir, editor.port, { pid: host.pid, workspaceFolders: [folder], ideName: 'Neovim', transport: 'ws', authToken: editor.token });
      const listed = await waitFor(async () => (await patchbay.snapshot()).editors.some((e) => e.port === editor.port) && performance.now(), {
        timeoutMs: 5000,
        intervalMs: 1,
        message: `the editor on port ${editor.port} in Patchbay's snapshot`,
      });
      times.push(listed - t0);
      // Let Patchbay finish with this editor (monitor, door lockfile) before the next one.
      await waitFor(async () => (await patchbay.snapshot()).editors.find((e) => e.port === editor.port)?.alive, { timeoutMs: 5000, message: `editor ${editor.port} alive` });
    }
  } finally {
    done = (await load?.stop()) ?? 0;
  }
  const during = load ? `, ${load.what} (${done} of them during the ${PLAN.lockfileRuns} runs)` : '';
  const metric = `new lockfile listed in status${load ? `, ${load.what}` : ''}`;
  return [
    { metric, unit: 'ms', bare: null, patchbay: median(times), target: { kind: 'value-max', max: 100 }, note: `median of ${PLAN.lockfileRuns}: lockfile written → the snapshot (what \`patchbay status\` prints) lists it${during}` },
    { metric: `${metric}: the slowest`, unit: 'ms', bare: null, patchbay: Math.max(...times), target: { kind: 'value-max', max: 200 }, note: `the slowest of the same ${PLAN.lockfileRuns}` },
  ];
}

async function measureMemory(owned: Owned, host: Child, root: string): Promise<Measurement> {
  const { memoryEditors: editorCount, memorySessions: sessionCount } = PLAN;
  const daemon = ownPatchbay(owned, await PatchbayDaemon.start(join(root, 'memory'), { nodeFlags: relayFlags }));
  const bare = await startBareRelay(owned, null);
  const editors: HostedEditor[] = [];
  for (let i = 0; i < editorCount; i += 10) {
    const batch = Array.from({ length: Math.min(10, editorCount - i) }, (_, j) =>
      startEditor(host, { lockDir: daemon.dirs.piLockDir, folder: join(root, 'memory-projects', `project-${i + j}`) }),
    );
    editors.push(...(await Promise.all(batch)));
  }
  progress(`memory: ${editorCount} editors started; waiting for the daemon to list them`);
  const listed = await waitFor(
    async () => {
      const snap = await daemon.snapshot();
      return snap.editors.filter((e) => e.alive).length === editorCount && snap;
    },
    { timeoutMs: 20_000, intervalMs: 50, message: `${editorCount} live editors in Patchbay's snapshot` },
  );
  const idByPort = new Map(listed.editors.map((e) => [e.port, e.id]));

  const pbAgents = await connectAgents(() => `ws://127.0.0.1:${daemon.door.port}`, daemon.door.token, sessionCount, owned);
  const sessions = await waitFor(
    async () => {
      const snap = await daemon.snapshot();
      return snap.sessions.length === sessionCount && snap.sessions;
    },
    { timeoutMs: 20_000, intervalMs: 50, message: `${sessionCount} sessions in Patchbay's snapshot` },
  );
  progress(`memory: ${sessionCount} sessions connected; binding them over ${editorCount} editors`);
  // Every agent here shares the bench's folder, so the person's choice spreads them out.
  for (let i = 0; i < sessions.length; i += 20) {
    await Promise.all(sessions.slice(i, i + 20).map((s, j) => daemon.bind(s.id, idByPort.get(editors[(i + j) % editorCount]!.port)!)));
  }
  await waitFor(async () => (await daemon.snapshot()).sessions.every((s) => s.editorId !== null), { timeoutMs: 10_000, intervalMs: 50, message: 'every session bound' });
  const folders = new Set(
    await Promise.all(pbAgents.map(async (a) => diagnosticsFolder(await withTimeout(a.call('tools/call', DIAGNOSTICS_CALL), 10_000, 'getDiagnostics'), 'patchbay'))),
  );
  if (folders.size !== editorCount) throw new Error(`the ${sessionCount} sessions reached ${folders.size} editors, not ${editorCount}`);
  // The peer lookup (/proc) gives up after a while; how many it found is part of the picture.
  const identified = (await daemon.snapshot()).sessions.filter((s) => s.pid !== null).length;
  // Measured headless: no UI or CLI attached.
  daemon.detach();

  const bareAgents = await connectAgents(
    (i) => {
      const e = editors[i % editorCount]!;
      return `ws://127.0.0.1:${bare.port}/${e.port}/${encodeURIComponent(e.token)}`;
    },
    'unused',
    sessionCount,
    owned,
  );
  await Promise.all(bareAgents.map(async (a) => diagnosticsFolder(await withTimeout(a.call('tools/call', DIAGNOSTICS_CALL), 10_000, 'getDiagnostics'), 'bare')));

  const sample = async (pid: number): Promise<number> => {
    let max = 0;
    for (let i = 0; i < 3; i++) {
      max = Math.max(max, await residentBytes(pid));
      await new Promise((r) => setTimeout(r, 250));
    }
    return max / MiB;
  };
  const [pbRss, bareRss] = await Promise.all([sample(daemon.child.pid), sample(bare.child.pid)]);
  const keeperRss = (await ownResidentBytes(daemon.child.pid)) / MiB;
  return {
    metric: `RSS, ${sessionCount} sessions / ${editorCount} editors`,
    unit: 'MiB',
    bare: bareRss,
    patchbay: pbRss,
    target: { kind: 'value-max', max: 150 },
    note: `resident memory of the daemon's keeper and core together, the pages they share (node itself) counted once (max of 3 samples over 0.5 s; the keeper's own VmRSS ${keeperRss.toFixed(0)} MiB) once every session is connected, bound and has made one getDiagnostics call (${identified} of ${sessionCount} sessions had been identified by their process); the bare relay is shown for scale`,
  };
}

// ── the run ────────────────────────────────────────────────────────────────

/** Starts/stops a CPU profile of both relays around one phase (only with --profile). */
type Profiled = <T>(phase: string, run: () => Promise<T>) => Promise<T>;

function profiler(dir: string | undefined, children: Record<string, Child>): Profiled {
  return async (phase, run) => {
    if (!dir) return run();
    await Promise.all(Object.values(children).map((c) => c.command({ cmd: 'profileStart' })));
    try {
      return await run();
    } finally {
      for (const [name, child] of Object.entries(children)) {
        const { path } = (await child.command({ cmd: 'profileStop', path: join(dir, `${phase}-${name}.cpuprofile`) }, 30_000)) as { path: string };
        progress(`profile: ${path}`);
      }
    }
  };
}

/** What the relay phases share: both relays, their agents to a pi and to a Claude-dialect editor, the pollers. */
interface Rig {
  /** The pi-dialect pairs (bare first). */
  pi: Pair[];
  /** Agents whose sessions go to a Claude-dialect editor. */
  claude: Pair[];
  /** The second sessions (poller.ts children), by relay. */
  pollers: Record<Pair['name'], Child>;
  /** Where the big diffs' files are; `existing` holds a 10 MiB original. */
  folder: string;
  existing: string;
}

/** Starts a poller child connected to `url`; the caller binds its session where needed. */
async function startPoller(owned: Owned, url: string, token: string): Promise<Child> {
  const child = owned.add('poller', Child.spawn({ label: 'poller', args: ['--import', 'tsx', 'test/bench/poller.ts'] }), (c) => c.close());
  await child.waitForLine((l) => l.ready === true, 20_000, 'ready line');
  await child.command({ cmd: 'connect', url, token }, 20_000);
  return child;
}

/** Binds the session that appears after `connect` runs to `editorId` (sessions here share a folder, so the rules cannot). */
async function bindNewSession<T>(patchbay: PatchbayProcess, editorId: string, connect: () => Promise<T>): Promise<T> {
  const known = new Set((await patchbay.snapshot()).sessions.map((s) => s.id));
  const connected = await connect();
  const session = await waitFor(async () => (await patchbay.snapshot()).sessions.find((s) => !known.has(s.id)), { timeoutMs: 5000, message: 'the new session in Patchbay' });
  await patchbay.bind(session.id, editorId);
  return connected;
}

/** Pushes each result into `out` as soon as it is measured, so a later failure keeps them. */
async function relayMeasurements(out: Measurement[], wants: (m: Metric) => boolean, owned: Owned, host: Child, root: string, profileDir: string | undefined): Promise<void> {
  const patchbay: PatchbayProcess = ownPatchbay(owned, profileDir ? await HubChild.start(join(root, 'relay'), { nodeFlags: relayFlags }) : await PatchbayDaemon.start(join(root, 'relay'), { nodeFlags: relayFlags }));
  // The agents' folder is the bench's own: the real peer lookup finds this process's cwd.
  const cwd = process.cwd();
  const pbEditor = await startEditor(host, { lockDir: patchbay.dirs.piLockDir, folder: cwd });
  const bareEditor = await startEditor(host, { lockDir: join(root, 'bare-locks'), folder: cwd });
  const bare = await startBareRelay(owned, bareEditor);
  const listed = await waitFor(async () => (await patchbay.snapshot()).editors.find((e) => e.port === pbEditor.port && e.alive), {
    timeoutMs: 10_000,
    message: `editor ${pbEditor.port} alive in Patchbay`,
  });

  const pb: Pair = {
    name: 'patchbay',
    agent: owned.add('agent', await BenchAgent.connect(`ws://127.0.0.1:${patchbay.door.port}`, patchbay.door.token), (a) => a.close()),
    pid: patchbay.child.pid,
  };
  const bareAgent: Pair = {
    name: 'bare',
    agent: owned.add('agent', await BenchAgent.connect(`ws://127.0.0.1:${bare.port}/`, 'unused'), (a) => a.close()),
    pid: bare.child.pid,
  };
  const session = await waitFor(async () => (await patchbay.snapshot()).sessions[0], { timeoutMs: 5000, message: 'the session in Patchbay' });
  // By hand: the Claude-dialect editor added below shares the folder, and focus would then decide.
  await patchbay.bind(session.id, listed.id);
  // One connection each: the session's upstream (Patchbay retires its own monitor link once a
  // session has one) and the bare relay's. A diagnostics call proves the upstream is there.
  const clients = async (key: number): Promise<number> => ((await host.command({ cmd: 'clients', key })) as { clients: number }).clients;
  await pb.agent.call('tools/call', { name: 'getDiagnostics', arguments: {} });
  await waitFor(async () => (await clients(pbEditor.key)) === 1, { timeoutMs: 5000, message: "Patchbay's one connection to its editor" });
  await waitFor(async () => (await clients(bareEditor.key)) === 1, { timeoutMs: 5000, message: "the bare relay's connection to its editor" });

  // Measured headless: no UI or CLI attached while traffic flows.
  patchbay.detach();
  progress(`relays: Patchbay pid ${pb.pid}, bare pid ${bareAgent.pid}`);
  const pairs = [bareAgent, pb];
  const profiled = profiler(profileDir, { patchbay: patchbay.child, bare: bare.child });

  if (wants('latency')) {
    progress('round-trip latency');
    out.push(...(await profiled('latency', () => measureLatency(pairs))));
  }
  if (wants('throughput')) {
    progress('selection_changed throughput');
    out.push(await profiled('throughput', () => measureThroughput(pairs, host, { bare: bareEditor.key, patchbay: pbEditor.key })));
  }
  // The big diffs' sessions (a second agent to a Claude-dialect editor, the pollers) join only
  // now: the small-frame rows above are measured with one session each, as before.
  const bigDiffs = wants('rounds') || wants('diff') || wants('stall') || wants('burst') || wants('lockfile');
  const rig: Rig = { pi: [bareAgent, pb], claude: [], pollers: {} as Rig['pollers'], folder: join(root, 'diff-project'), existing: join(root, 'diff-project', 'big.ts') };
  // Made (10 MiB of text, and its JSON) only for the rows that send it.
  const proposal: Proposal = bigDiffs ? proposalOf(PLAN.diffBytes) : { text: '', json: Buffer.alloc(0) };
  if (bigDiffs) {
    // Patchbay looks at the on-disk original of a diff: here it exists, and differs from the proposal.
    await mkdir(rig.folder, { recursive: true });
    await writeFile(rig.existing, sourceText(PLAN.diffBytes, 'original'));
    const pbClaude = await startEditor(host, { lockDir: join(patchbay.dirs.claudeConfigDir, 'ide'), folder: cwd, dialect: 'claude' });
    const bareClaude = await startEditor(host, { lockDir: join(root, 'bare-locks'), folder: cwd, dialect: 'claude' });
    for (const editor of [pbEditor, bareEditor, pbClaude, bareClaude]) await host.command({ cmd: 'prepare', key: editor.key, bytes: PLAN.diffBytes, seed: PROPOSAL_SEED }, 30_000);
    const claudeId = (await waitFor(async () => (await patchbay.snapshot()).editors.find((e) => e.port === pbClaude.port && e.alive), { timeoutMs: 10_000, message: `Claude-dialect editor ${pbClaude.port} alive in Patchbay` })).id;
    rig.claude = [
      { name: 'bare', agent: owned.add('agent', await BenchAgent.connect(`ws://127.0.0.1:${bare.port}/${bareClaude.port}/${bareClaude.token}`, 'unused'), (a) => a.close()), pid: bare.child.pid },
      {
        name: 'patchbay',
        agent: owned.add('agent', await bindNewSession(patchbay, claudeId, () => BenchAgent.connect(`ws://127.0.0.1:${patchbay.door.port}`, patchbay.door.token)), (a) => a.close()),
        pid: patchbay.child.pid,
      },
    ];
    if (wants('stall')) {
      rig.pollers = {
        bare: await startPoller(owned, `ws://127.0.0.1:${bare.port}/${bareEditor.port}/${bareEditor.token}`, 'unused'),
        patchbay: await bindNewSession(patchbay, listed.id, () => startPoller(owned, `ws://127.0.0.1:${patchbay.door.port}`, patchbay.door.token)),
      };
    }
  }
  patchbay.detach();
  if (wants('rounds')) {
    progress('the phases back to back: a warm-up round');
    out.push(...(await profiled('rounds', () => measureRounds(rig, host, { bare: bareEditor.key, patchbay: pbEditor.key }, proposal))));
  }
  if (wants('diff')) out.push(...(await profiled('diff', () => measureDiffs(rig, proposal))));
  if (wants('stall')) {
    progress("a second session's calls while 10 MiB diffs pass");
    out.push(...(await profiled('stall', () => measureStall(rig, proposal))));
  }
  if (wants('burst')) {
    progress(`RSS around ${PLAN.burstDiffs} 10 MiB diffs`);
    out.push(await profiled('burst', () => measureBurst(rig, proposal)));
  }
  if (wants('lockfile')) {
    const freshHost = await startEditorHost(owned);
    progress('new lockfile → status');
    out.push(...(await profiled('lockfile', () => measureLockfileToStatus(patchbay, freshHost, root))));
    progress('new lockfile → status, while 10 MiB diffs pass');
    const differ = await bindNewSession(patchbay, listed.id, () => startPoller(owned, `ws://127.0.0.1:${patchbay.door.port}`, patchbay.door.token));
    const diffs: Load = {
      what: 'while 10 MiB diffs pass',
      start: async () => void (await differ.command({ cmd: 'diffs', path: rig.existing, bytes: PLAN.diffBytes })),
      stop: async () => ((await differ.command({ cmd: 'collect' }, 60_000)) as { samples: number[] }).samples.length,
    };
    out.push(...(await profiled('lockfile-loaded', () => measureLockfileToStatus(patchbay, freshHost, root, diffs))));
  }
  if (wants('idle')) {
    progress(`CPU while idle, ${PLAN.idleMs / 1000} s`);
    out.push(await measureIdle(patchbay.child.pid, bare.child.pid));
  }
  // Last: the core changes under the rows above.
  if (wants('restart') && patchbay instanceof PatchbayDaemon) {
    progress('a relayed request during `patchbay restart`');
    out.push(...(await measureRestart(patchbay, pb.agent)));
  }
}

/**
 * What each relay costs while nothing happens: its whole process tree's CPU over `idleMs`, with
 * the editors and sessions of the rows above still connected, after a quiet while (a tray app
 * that is open all day spends most of it like this).
 */
async function measureIdle(patchbayPid: number, barePid: number): Promise<Measurement> {
  await sleep(PLAN.idleSettleMs);
  const before = await Promise.all([cpuMillis(barePid), cpuMillis(patchbayPid)]);
  await sleep(PLAN.idleMs);
  const after = await Promise.all([cpuMillis(barePid), cpuMillis(patchbayPid)]);
  const perSecond = (i: number): number => ((after[i]! - before[i]!) * 1000) / PLAN.idleMs;
  return {
    metric: 'CPU while idle, editors and sessions connected',
    unit: 'ms/s',
    bare: perSecond(0),
    patchbay: perSecond(1),
    target: { kind: 'value-max', max: 10 },
    note: `each relay's process tree over ${PLAN.idleMs / 1000} s with no traffic, from ${PLAN.idleSettleMs / 1000} s after the last (a relay just started is still compiling and collecting)`,
  };
}

/** While `patchbay restart` runs: a getDiagnostics every 5 ms from the agent; how long the slowest waited, and how many were never answered. */
async function measureRestart(patchbay: PatchbayDaemon, agent: BenchAgent): Promise<Measurement[]> {
  const sent: Promise<number | null>[] = [];
  const lostAt: number[] = [];
  let sending = true;
  let restartAt = 0;
  const loop = (async () => {
    while (sending) {
      const id = agent.reserveId();
      const t0 = performance.now();
      sent.push(
        withTimeout(agent.sendRequest(id, `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${DIAGNOSTICS_PARAMS}}`), 10_000, 'an answer').then(
          (r) => r.at - t0,
          () => (lostAt.push(t0 - restartAt), null),
        ),
      );
      await sleep(5);
    }
  })();
  await sleep(500);
  const before = await patchbay.snapshot();
  const t0 = performance.now();
  restartAt = t0;
  await patchbay.restart();
  const after = await waitFor(async () => (await patchbay.snapshot().catch(() => null))?.corePid !== before.corePid && performance.now(), { timeoutMs: 30_000, intervalMs: 10, message: 'the new core answering' });
  await sleep(1000);
  sending = false;
  await loop;
  const waits = await Promise.all(sent);
  const answered = waits.filter((w): w is number => w !== null);
  const lost = waits.length - answered.length;
  const note = `${waits.length} calls, one every 5 ms from 0.5 s before \`patchbay restart\` to 1 s after the new core answered (it did ${(after - t0).toFixed(0)} ms after the command)`;
  return [
    { metric: 'a relayed request delayed by `patchbay restart`, at most', unit: 'ms', bare: null, patchbay: Math.max(...answered), target: { kind: 'value-max', max: 1000 }, note },
    { metric: 'requests lost in `patchbay restart`', unit: '', bare: null, patchbay: lost, target: { kind: 'value-max', max: 0 }, note: `never answered within 10 s${lostAt.length > 0 ? `: sent ${lostAt.map((t) => t.toFixed(0)).join(', ')} ms after the command` : ''}` },
  ];
}

/** One run of every wanted measurement, each relay and editor started afresh. */
async function runOnce(wants: (m: Metric) => boolean, profileDir: string | undefined): Promise<{ rows: Row[]; errors: string[] }> {
  const owned = new Owned();
  const root = await tempDir('bench');
  const measurements: Measurement[] = [];
  const errors: string[] = [];
  try {
    const host = await startEditorHost(owned);
    if (METRICS.some((m) => m !== 'memory' && m !== 'ui' && wants(m))) {
      const relay = new Owned();
      try {
        await relayMeasurements(measurements, wants, relay, host, root.path, profileDir);
      } catch (err) {
        errors.push(`relay measurements: ${(err as Error).stack ?? String(err)}`);
      } finally {
        errors.push(...(await relay.closeAll()));
      }
    }
    if (wants('memory')) {
      progress(`memory with ${PLAN.memorySessions} sessions`);
      const memory = new Owned();
      try {
        measurements.push(await measureMemory(memory, host, root.path));
      } catch (err) {
        errors.push(`memory measurement: ${(err as Error).stack ?? String(err)}`);
      } finally {
        errors.push(...(await memory.closeAll()));
      }
    }
    if (wants('ui')) {
      try {
        measurements.push(...(await measureUiViews(join(root.path, 'ui'), progress, undefined, profileDir)));
      } catch (err) {
        errors.push(`ui measurement: ${(err as Error).stack ?? String(err)}`);
      }
    }
  } finally {
    errors.push(...(await owned.closeAll()));
    await root.cleanup();
  }
  return { rows: measurements.map(judge), errors };
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { json: { type: 'boolean' }, only: { type: 'string' }, profile: { type: 'string' }, runs: { type: 'string' }, 'node-flags': { type: 'string' }, 'bare-heap-mb': { type: 'string' } } });
  relayFlags = values['node-flags']?.split(/\s+/).filter((f) => f !== '') ?? [];
  bareHeapMb = Number(values['bare-heap-mb'] ?? 0);
  if (!(bareHeapMb >= 0)) throw new Error('--bare-heap-mb takes a number of MB');
  const only = values.only?.split(',').map((m) => m.trim());
  const unknown = only?.filter((m) => !(METRICS as readonly string[]).includes(m)) ?? [];
  if (unknown.length > 0) throw new Error(`--only: unknown metric(s) ${unknown.join(', ')}; known: ${METRICS.join(', ')}`);
  const wants = (m: Metric): boolean => only === undefined || only.includes(m);
  const runCount = values.runs === undefined ? 1 : Number(values.runs);
  if (!Number.isInteger(runCount) || runCount < 1) throw new Error(`--runs: expected a whole number of runs, got ${JSON.stringify(values.runs)}`);
  const profileDir = values.profile === undefined ? undefined : resolve(values.profile);
  if (profileDir) await mkdir(profileDir, { recursive: true });

  const load = loadavg()[0]!;
  const runs: Row[][] = [];
  const errors: string[] = [];
  for (let run = 1; run <= runCount; run++) {
    if (runCount > 1) progress(`run ${run} of ${runCount}`);
    const once = await runOnce(wants, profileDir);
    runs.push(once.rows);
    errors.push(...once.errors);
    if (runCount > 1 && !values.json) process.stderr.write(`\nrun ${run}:\n${formatTable(once.rows)}\n\n`);
  }

  const summaries = summarize(runs);
  const failed = summaries.filter((r) => r.pass === false).map((r) => r.metric);
  const seconds = (performance.now() - started) / 1000;
  const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, nodeFlags: relayFlags, bareHeapMb, platform: process.platform, loadAverageAtStart: load, loadAverageAtEnd: loadavg()[0]! };
  const patchbayAs = profileDir ? 'the hub alone, profiled (hub-child.ts)' : 'patchbay daemon';
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ machine, plan: PLAN, patchbay: patchbayAs, seconds, runs, summary: summaries.map(({ runs: _, ...s }) => ({ ...s, spread: spreadOf({ ...s, runs: _ }) })), failed, errors }, null, 2)}\n`);
  } else {
    const busy = load > machine.cpus * 0.5 ? ` — the machine was busy (load ${load.toFixed(1)}), expect noise` : '';
    const over = runCount > 1 ? `, ${runCount} runs: medians, and the spread over the runs` : '';
    const flags = `${relayFlags.length > 0 ? ` (both relays under ${relayFlags.join(' ')})` : ''}${bareHeapMb > 0 ? ` (the bare relay holding ${bareHeapMb} MB of inert objects: a diagnostic, not the baseline)` : ''}`;
    process.stdout.write(`\nPatchbay (${patchbayAs}) vs a bare relay: ${machine.cpus} cores, node ${process.version}${flags}, ${seconds.toFixed(0)} s${over}${busy}\n\n`);
    process.stdout.write(`${runCount > 1 ? formatSummary(summaries) : formatTable(summaries)}\n\n`);
    for (const row of runs.at(-1) ?? []) if (row.note) process.stdout.write(`  ${row.metric}: ${row.note}\n`);
    process.stdout.write(failed.length === 0 ? '\nAll targets met.\n' : `\nFAIL: ${failed.length} target(s) missed: ${failed.join('; ')}\n`);
  }
  for (const error of errors) process.stderr.write(`bench error: ${error}\n`);
  return errors.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    process.stderr.write(`bench: ${err.stack ?? err.message}\n`);
    process.exitCode = 1;
  },
);
