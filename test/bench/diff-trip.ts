// One 10 MiB openDiff through a relay, as the benchmark's agents send it: shared by the
// benchmark itself and by the child that keeps diffs passing while another row is measured.
import { withTimeout } from '../peers/wait.ts';
import type { BenchAgent, Response } from './agent.ts';
import { sourceText } from './source-text.ts';

/** The seed of the proposal's source text: the editors are told it (`prepare`) to answer with the same bytes. */
export const PROPOSAL_SEED = 'proposed';

/** An agent of one relay: `name` labels it in errors. */
export interface DiffAgent {
  name: string;
  agent: BenchAgent;
}

/** The proposal, serialised once: each request is its head, these bytes and its tail. */
export interface Proposal {
  text: string;
  /** JSON.stringify(text), as every request and every FILE_SAVED answer carries it. */
  json: Buffer;
}

/** The proposal of `bytes` of code the editors answer with. */
export function proposalOf(bytes: number): Proposal {
  const text = sourceText(bytes, PROPOSAL_SEED);
  return { text, json: Buffer.from(JSON.stringify(text)) };
}

let tabSeq = 0;

/**
 * One openDiff of the proposal through `pair`: the request is serialised before the clock starts
 * and the answer timed when it has arrived, undecoded; then checked (byte for byte: the editor's
 * FILE_SAVED with the proposal) and, as pi does after every openDiff, its tab closed (not timed).
 */
export async function diffRoundTrip(pair: DiffAgent, path: string, proposal: Proposal): Promise<number> {
  const tab = `pi-write:${process.pid}-${++tabSeq}`;
  const id = pair.agent.reserveId();
  const file = JSON.stringify(path);
  const frame = Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"openDiff","arguments":{"old_file_path":${file},"new_file_path":${file},"new_file_contents":`),
    proposal.json,
    Buffer.from(`,"tab_name":${JSON.stringify(tab)}}}}`),
  ]);
  const t0 = performance.now();
  const response = await withTimeout(pair.agent.sendRequest(id, frame), 30_000, `openDiff through ${pair.name}`);
  const elapsed = response.at - t0;
  checkSaved(response, id, proposal, pair.name);
  await withTimeout(pair.agent.call('tools/call', { name: 'close_tab', arguments: { tab_name: tab } }), 10_000, `close_tab through ${pair.name}`);
  return elapsed;
}

/** The answer is the editor's FILE_SAVED carrying the proposal, as its bytes (a memcmp, no decode). */
function checkSaved(response: Response, id: number, proposal: Proposal, via: string): void {
  const head = Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":`);
  const raw = response.raw;
  const ok =
    raw !== undefined &&
    raw.length === head.length + proposal.json.length + 4 &&
    raw.subarray(0, head.length).equals(head) &&
    raw.subarray(head.length, head.length + proposal.json.length).equals(proposal.json);
  if (!ok) {
    const got = raw ? `${raw.length} bytes starting ${raw.toString('utf8', 0, 200)}` : JSON.stringify(response).slice(0, 300);
    throw new Error(`openDiff through ${via}: expected FILE_SAVED with the ${proposal.text.length}-char proposal, got ${got}`);
  }
}

