/**
 * `node --import tsx test/bench/pi-client.ts`: what a person waits for in the hosted-pi client.
 *   - Listing pi's saved sessions (`patchbay pi sessions`, the view's list): 300 session files in
 *     pi's layout, code-like turns (quotes, backslashes, tabs, non-ASCII), ~5 MiB in all; the
 *     first listing (every file read) and the next (files unchanged: what was read is kept),
 *     against a baseline measured in the same run: listing and stat-ing the same files.
 *   - Rebuilding a transcript from pi's messages after a resume (3,000 messages).
 * Prints a table of medians (wall and CPU) over several rounds; `--json` prints them as JSON.
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuUsage } from 'node:process';
import { transcriptFromMessages } from '../../src/rpc/hosted.ts';
import { SessionCatalog } from '../../src/rpc/session-list.ts';
import { tempDir } from '../peers/wait.ts';
import { sourceText } from './source-text.ts';

const SESSIONS = 300;
const TURNS = 8;
const ROUNDS = 7;
const MESSAGES = 3000;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

async function measure(run: () => Promise<unknown> | unknown): Promise<Sample> {
  const cpu = cpuUsage();
  const started = performance.now();
  await run();
  const used = cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function messages(n: number): unknown[] {
  const code = sourceText(4 * 1024, 'pi-client');
  const list: unknown[] = [{ role: 'system', content: '', sections: { preamble: 'You are pi.' } }];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) list.push({ role: 'user', content: [{ type: 'text', text: `Turn ${i}: fix “the parser” in src\\parse.ts` }], timestamp: i });
    else if (i % 3 === 1) {
      list.push({
        role: 'assistant',
        content: [
          { type: 'text', text: `Here is the change:\n\`\`\`ts\n${code.slice(0, 600)}\n\`\`\`` },
          { type: 'toolCall', id: `call_${i}`, name: 'edit', arguments: { path: 'src/parse.ts', edits: [{ oldText: code.slice(0, 200), newText: code.slice(200, 400) }] } },
        ],
        stopReason: 'toolUse',
        timestamp: i,
      });
    } else list.push({ role: 'toolResult', toolCallId: `call_${i - 1}`, toolName: 'edit', content: [{ type: 'text', text: code.slice(0, 300) }], isError: false, timestamp: i });
  }
  return list;
}

async function writeSessions(root: string): Promise<number> {
  let bytes = 0;
  const turns = messages(TURNS * 3);
  for (let s = 0; s < SESSIONS; s++) {
    const folder = join(root, `--work-project-${s % 12}--`);
    await mkdir(folder, { recursive: true });
    const lines = [
      { type: 'session', version: 3, id: `id-${s}`, timestamp: new Date(1_700_000_000_000 + s * 60_000).toISOString(), cwd: `/work/project-${s % 12}` },
      ...turns.map((message, i) => ({ type: 'message', id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: 't', message })),
      ...(s % 4 === 0 ? [{ type: 'session_info', id: 'n', parentId: 'x', timestamp: 't', name: `Session ${s}` }] : []),
    ];
    const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    bytes += Buffer.byteLength(text);
    await writeFile(join(folder, `2026-01-01_${s}.jsonl`), text);
  }
  return bytes;
}

/** The baseline: what any listing costs, finding the files and their sizes. */
async function bareListing(root: string): Promise<number> {
  let n = 0;
  for (const dir of await readdir(root)) for (const file of await readdir(join(root, dir))) n += (await stat(join(root, dir, file))).size > 0 ? 1 : 0;
  return n;
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const dir = await tempDir('bench-pi-client');
  try {
    const sessions = join(dir.path, 'sessions');
    const bytes = await writeSessions(sessions);
    const bare: Sample[] = [];
    const cold: Sample[] = [];
    const warm: Sample[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await measure(() => bareListing(sessions)));
      const catalog = new SessionCatalog();
      let listed = 0;
      cold.push(await measure(async () => (listed = (await catalog.list([sessions], () => null)).length)));
      if (listed !== SESSIONS) throw new Error(`listed ${listed} of ${SESSIONS} sessions`);
      warm.push(await measure(() => catalog.list([sessions], () => null)));
    }
    const data = { messages: messages(MESSAGES) };
    const rebuild: Sample[] = [];
    for (let round = 0; round < ROUNDS; round++) rebuild.push(await measure(() => transcriptFromMessages(data)));

    const row = (name: string, samples: Sample[], base?: Sample[]) => ({
      name,
      wallMs: median(samples.map((s) => s.wallMs)),
      cpuMs: median(samples.map((s) => s.cpuMs)),
      ratio: base ? median(samples.map((s) => s.wallMs)) / median(base.map((s) => s.wallMs)) : null,
    });
    const rows = [
      row(`bare listing (readdir + stat), ${SESSIONS} files`, bare),
      row(`pi sessions, first listing (${(bytes / 1024 / 1024).toFixed(1)} MiB read)`, cold, bare),
      row('pi sessions, again (files unchanged)', warm, bare),
      row(`transcript from ${MESSAGES} messages`, rebuild),
    ];
    if (json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    process.stdout.write(`median of ${ROUNDS} rounds\n`);
    for (const r of rows) {
      process.stdout.write(`${r.name.padEnd(58)} ${r.wallMs.toFixed(1).padStart(8)} ms wall ${r.cpuMs.toFixed(1).padStart(8)} ms CPU${r.ratio === null ? '' : `  ${r.ratio.toFixed(2)}× the bare listing`}\n`);
    }
  } finally {
    await dir.cleanup();
  }
}

await main();
