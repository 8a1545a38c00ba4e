/**
 * Where a process spent its CPU: a `.cpuprofile` (node --cpu-prof, or profiler.ts) summarized
 * by self time per file and function, and inclusive time per function, with the project's own
 * files named relative to the repo.
 *
 *   node --import tsx test/bench/profile-summary.ts <file.cpuprofile> [--top N] [--filter TEXT]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Share {
  name: string;
  ms: number;
  percent: number;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function shortUrl(url: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(ROOT)) return path.slice(ROOT.length);
  return path || '(native)';
}

function frameName(frame: ProfileNode['callFrame']): string {
  return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

/**
 * Self time per function and per file, and inclusive time per function (itself plus what it
 * called), largest first. Idle and GC are kept as named.
 */
export function summarize(profile: Profile): { total: number; functions: Share[]; files: Share[]; inclusive: Share[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const name = frameName(frame);
    fn.set(name, (fn.get(name) ?? 0) + us);
    file.set(shortUrl(frame.url), (file.get(shortUrl(frame.url)) ?? 0) + us);
    total += us;
    // Each function on the stack once, however deep it recurses.
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) onStack.add(frameName(byId.get(at)!.callFrame));
    for (const f of onStack) inclusive.set(f, (inclusive.get(f) ?? 0) + us);
  }
  const shares = (m: Map<string, number>): Share[] =>
    [...m.entries()].map(([name, us]) => ({ name, ms: us / 1000, percent: (100 * us) / total })).sort((a, b) => b.ms - a.ms);
  return { total: total / 1000, functions: shares(fn), files: shares(file), inclusive: shares(inclusive) };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' }, filter: { type: 'string' } } });
  const path = positionals[0];
  if (!path) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--top N] [--filter TEXT]');
  const profile = JSON.parse(await readFile(path, 'utf8')) as Profile;
  const { total, functions, files, inclusive } = summarize(profile);
  const top = Number(values.top ?? 30);
  const keep = (s: Share): boolean => values.filter === undefined || s.name.includes(values.filter);
  const print = (title: string, list: Share[]): void => {
    process.stdout.write(`\n${title}\n`);
    for (const s of list.filter(keep).slice(0, top)) process.stdout.write(`${s.ms.toFixed(1).padStart(9)} ms ${s.percent.toFixed(1).padStart(5)}%  ${s.name}\n`);
  };
  process.stdout.write(`${path}: ${total.toFixed(0)} ms sampled\n`);
  print('self time by file', files);
  print('self time by function', functions);
  print('inclusive time by function (itself + callees)', inclusive);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  });
}
