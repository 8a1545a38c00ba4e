// What a run of Patchbay that died (the whole daemon: kill -9, power loss) left pending, and
// what became of each edit: pi-ide writes the file itself when its link drops, so the next start
// looks. The file equal to the proposal: written without review. The file as it was when the edit
// arrived (same size and time, or still missing): not written. Anything else: changed since.
// The proposal is the agent's own request, kept in the home while it waited (held-diffs.ts):
// compared here once, at the start, instead of hashing every proposal on its way (a 10 MiB
// proposal: sha256 ~6 ms of CPU on this machine, writing it there ~2 ms, and it also serves a
// core that restarts under the daemon).
import { rm } from 'node:fs/promises';
import type { Notice, TraceEntry } from '../api/types.ts';
import { readBounded } from '../fs/bounded-read.ts';
import type { PendingRecord } from './pending-log.ts';

/** The proposal in a held request: its file's contents as the agent would write them. */
async function proposalOf(held: string, maxBytes: number): Promise<Buffer | null> {
  try {
    const read = await readBounded(held, maxBytes, { noFollow: true });
    if (read.kind !== 'bytes') return null;
    const request = JSON.parse(read.bytes.toString('utf8')) as { params?: { arguments?: { new_file_contents?: unknown } } };
    const text = request.params?.arguments?.new_file_contents;
    return typeof text === 'string' ? Buffer.from(text, 'utf8') : null;
  } catch {
    return null;
  }
}

/** What the edit's file holds now, against the proposal and against what it was at arrival. */
export async function verdictOf(record: PendingRecord, maxBytes: number): Promise<TraceEntry['verdict']> {
  const proposal = record.held ? await proposalOf(record.held, maxBytes) : null;
  const now = await readBounded(record.path, proposal === null ? 0 : proposal.length).catch(() => null);
  if (proposal !== null && now?.kind === 'bytes' && now.bytes.equals(proposal)) return 'written';
  if (record.original !== undefined) {
    const stats = now?.kind === 'bytes' || now?.kind === 'too-large' ? now.stats : null;
    const same = record.original === null ? now?.kind === 'missing' : stats !== null && stats.size === record.original.size && stats.mtimeMs === record.original.mtimeMs;
    if (same) return 'not-written';
  }
  return proposal === null ? 'unknown' : 'changed';
}

const WORDS: Record<TraceEntry['verdict'], string> = {
  written: 'written without review',
  'not-written': 'not written',
  changed: 'changed since',
  unknown: 'cannot tell (the proposal was not kept)',
};

/**
 * The trace of the dead run's pending edits (null when there is nothing to say), as a notice
 * dated when that run was last known alive. A hosted pi's edit is left out unless it was
 * written: that pi died with Patchbay, so nothing else wrote it.
 */
export async function crashTrace(leftovers: readonly PendingRecord[], diedAt: number, maxBytes: number): Promise<{ notice: Notice | null; entries: TraceEntry[] }> {
  const entries: TraceEntry[] = [];
  for (const record of leftovers) {
    const verdict = await verdictOf(record, maxBytes);
    if (record.hosted && verdict !== 'written') continue;
    entries.push({ diffId: record.id, path: record.path, agent: record.agent, sessionId: record.sessionId, verdict });
  }
  await Promise.all(leftovers.flatMap((r) => (r.held ? [rm(r.held, { force: true }).catch(() => {})] : [])));
  if (entries.length === 0) return { notice: null, entries };
  const n = entries.length;
  const files = entries.map((e) => `${e.path}: ${WORDS[e.verdict]} (${e.diffId}, from ${e.agent})`).join('; ');
  const written = entries.some((e) => e.verdict === 'written' || e.verdict === 'changed' || e.verdict === 'unknown');
  return {
    entries,
    notice: {
      id: `crash-trace-${diedAt}`,
      kind: 'crash-trace',
      at: diedAt,
      files: entries,
      message:
        `Patchbay stopped unexpectedly with ${n} ${n === 1 ? 'edit' : 'edits'} waiting for review: ${files}.` +
        (written ? ' Check the files written without review: the agent wrote them when its link to Patchbay dropped.' : ''),
    },
  };
}
