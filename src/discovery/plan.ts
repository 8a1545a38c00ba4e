// Discovery's decisions as a pure function (DESIGN §3): for one port in one lock dir, given
// what the scan found there and what probing found, which file is the editor, which are
// listed as unusable and which moves to make. The file system and the sockets stay outside:
// the discovery loop scans, probes and carries out the steps.
import type { InvalidLockfile } from '../api/types.ts';
import type { LockEntry, OtherLockfile } from '../protocol/lockfile.ts';
import { describeProbe, isLocalProbeError, type ProbeResult } from './liveness.ts';

/** One lockfile as the scan found it. */
export type FileState =
  /** Valid and the current user's; `alive`: its pid runs. */
  | { kind: 'lock'; entry: LockEntry; alive: boolean }
  /** Valid, but another user's: never trusted (DESIGN §10). */
  | { kind: 'foreign'; entry: LockEntry }
  | { kind: 'invalid'; path: string; reason: string }
  /** Another protocol's lockfile (another tool's): listed, never moved, rewritten or deleted. */
  | { kind: 'other'; other: OtherLockfile }
  /** Could not be read for a reason of this machine's (out of descriptors…): nothing is known. */
  | { kind: 'unreadable'; path: string; reason: string };

/** One port in one lock dir: the file agents see and the one Patchbay holds in `.patchbay/`. */
export interface Candidate {
  port: number;
  top: FileState | null;
  adopted: FileState | null;
}

export type Which = 'top' | 'adopted';

/** What probing a live lockfile found. */
export interface ProbeOutcome {
  result: ProbeResult;
  /** After a failed probe: whether its pid still runs (a killed editor closes its port first). */
  aliveAfter: boolean;
  /**
   * Whether the lockfile's pid (or a process descended from it) holds the listening socket;
   * null: cannot tell. Checked before the token is sent: false comes with result 'ok' (something
   * listens) and no connection made.
   */
  holdsPort: boolean | null;
}

export interface PlanContext {
  /** Null when takeover acts in this dir; otherwise why it does not ("takeover is off"…). */
  takeoverOff: string | null;
  /** The current user (null where there are no uids), for the reason a foreign file is refused. */
  uid: number | null;
  probeTimeoutMs: number;
}

/** Moves to make. Paths are where the files are now; the executor knows where they go. */
export type Step =
  /** `<dir>/<port>.lock` → `.patchbay/`, replacing an older adopted file. */
  | { op: 'adopt'; from: string; why: string }
  /** `.patchbay/<port>.lock` → `<dir>/`, moving aside whatever is in its way. */
  | { op: 'give-back'; from: string; why: string }
  | { op: 'remove'; path: string; why: string };

export interface Listing {
  /** The file that is the live editor, if one is; `path` is where it is before the steps. */
  editor: { which: Which; entry: LockEntry; path: string } | null;
  /** Unusable files with the reason, by where they are before the steps. */
  invalid: InvalidLockfile[];
  /** Other protocols' lockfiles: left where they are. */
  others: OtherLockfile[];
}

export type Plan =
  /** Probe these live lockfiles, then plan again with the outcomes. */
  | { kind: 'probe'; which: Which[] }
  /** Something could not be looked at for a reason of this machine's: change nothing, list what was listed. */
  | { kind: 'keep'; why: string }
  | ({ kind: 'act'; steps: Step[] } & Listing);

function pathOf(file: FileState): string {
  if (file.kind === 'other') return file.other.path;
  return file.kind === 'lock' || file.kind === 'foreign' ? file.entry.path : file.path;
}

/** Why a file that is not a live editor's lockfile of ours is listed. */
function refusal(file: Exclude<FileState, { kind: 'lock' }>, uid: number | null): string {
  if (file.kind === 'other') return `another protocol's lockfile: ${file.other.description}`;
  if (file.kind !== 'foreign') return file.reason;
  return `owned by uid ${file.entry.uid}, not by you (uid ${uid}): Patchbay uses only your own lockfiles`;
}

type Verdict =
  | { editor: true }
  /** `dead`: its pid is gone; `seen`: agents would count it (pid alive, port accepting TCP). */
  | { editor: false; dead: boolean; seen: boolean; reason: string };

function judge(file: Extract<FileState, { kind: 'lock' }>, probe: ProbeOutcome | undefined, ctx: PlanContext): Verdict {
  const { pid } = file.entry.lock;
  const { port } = file.entry;
  const dead: Verdict = { editor: false, dead: true, seen: false, reason: `pid ${pid} is not running` };
  if (!file.alive || probe === undefined) return dead;
  if (probe.result === 'ok') {
    if (probe.holdsPort !== false) return { editor: true };
    return { editor: false, dead: false, seen: true, reason: `neither pid ${pid} nor a process descended from it holds port ${port}: another process serves it` };
  }
  if (!probe.aliveAfter) return dead;
  return {
    editor: false,
    dead: false,
    seen: probe.result !== 'refused',
    reason: describeProbe(probe.result, port, ctx.probeTimeoutMs),
  };
}

/**
 * Decides one port of one lock dir. Called first without probes (it asks for the ones it
 * needs), then with them. The rules:
 * - Anything unreadable for a reason of this machine's, or a probe that this machine could not
 *   make: keep what was known (never give back or delete on such a failure).
 * - The file agents see is the editor's newest word: if it is a live editor's, it is the
 *   editor and is adopted (replacing an older adopted copy), or, without takeover here, stays
 *   and the older copy goes.
 * - Otherwise the adopted file stands on its own: a live editor stays adopted (given back
 *   without takeover), a dead one or one whose port closed is deleted, one that is no editor
 *   stays held while agents would count it and is given back otherwise. Whatever sits at the original path does not
 *   remove it.
 * - A give-back never runs into a live editor's lockfile of ours (that would drop the copy),
 *   nor into another protocol's lockfile: another tool's file is never moved, rewritten or
 *   deleted, wherever it is.
 */
export function planLockfile(c: Candidate, probes: Partial<Record<Which, ProbeOutcome>>, ctx: PlanContext): Plan {
  for (const file of [c.top, c.adopted]) {
    if (file?.kind === 'unreadable') return { kind: 'keep', why: `${file.path}: ${file.reason}` };
  }
  const live = (['top', 'adopted'] as const).filter((which) => {
    const file = c[which];
    return file?.kind === 'lock' && file.alive;
  });
  const unprobed = live.filter((which) => probes[which] === undefined);
  if (unprobed.length > 0) return { kind: 'probe', which: unprobed };
  for (const which of live) {
    const { result } = probes[which]!;
    if (isLocalProbeError(result)) return { kind: 'keep', why: `${pathOf(c[which]!)}: ${describeProbe(result, c.port, ctx.probeTimeoutMs)}` };
  }

  const steps: Step[] = [];
  const listing: Listing = { editor: null, invalid: [], others: [] };
  const act = (): Plan => ({ kind: 'act', steps, ...listing });
  const { top, adopted } = c;
  const takeover = ctx.takeoverOff === null;

  if (top?.kind === 'other') listing.others.push(top.other);
  else if (top !== null && top.kind !== 'lock') listing.invalid.push({ path: pathOf(top), reason: refusal(top, ctx.uid) });
  if (top?.kind === 'lock') {
    const verdict = judge(top, probes.top, ctx);
    if (verdict.editor) {
      listing.editor = { which: 'top', entry: top.entry, path: top.entry.path };
      if (takeover) steps.push({ op: 'adopt', from: top.entry.path, why: adopted ? 'adopted, replacing the older adopted copy' : 'adopted' });
      else if (adopted) steps.push({ op: 'remove', path: pathOf(adopted), why: `superseded by ${top.entry.path}` });
      return act();
    }
    listing.invalid.push({ path: top.entry.path, reason: verdict.reason });
    // Agents count any lockfile whose pid lives and whose port accepts TCP: one left beside the
    // door would make two matches and stop their autoconnect, so it is held aside too.
    if (takeover && verdict.seen && adopted === null) {
      steps.push({ op: 'adopt', from: top.entry.path, why: `moved aside so agents see only the door (${verdict.reason})` });
    }
  }
  if (adopted === null) return act();

  // Giving back onto a live editor's lockfile of ours would drop the adopted copy instead, and
  // onto another tool's would move that aside.
  const blocked = (top?.kind === 'lock' && top.alive) || top?.kind === 'other';
  if (adopted.kind !== 'lock') {
    const reason = refusal(adopted, ctx.uid);
    if (adopted.kind === 'other') listing.others.push(adopted.other);
    else listing.invalid.push({ path: pathOf(adopted), reason });
    // Not Patchbay's to hold; moved back only where nothing else sits, or it would push that aside.
    if (top === null) steps.push({ op: 'give-back', from: pathOf(adopted), why: `adopted lockfile is unusable (${reason})` });
    return act();
  }
  const verdict = judge(adopted, probes.adopted, ctx);
  if (!verdict.editor && verdict.dead) {
    steps.push({ op: 'remove', path: adopted.entry.path, why: `editor pid ${adopted.entry.lock.pid} is gone` });
    return act();
  }
  // Its port closed: the editor quit (or is quitting; `:qa!` closes the port before the process
  // ends). Given back, its lockfile would stay in the agents' dir with a dead pid: it goes.
  if (!verdict.editor && probes.adopted?.result === 'refused') {
    steps.push({ op: 'remove', path: adopted.entry.path, why: `port ${adopted.entry.port} is closed: the editor is gone` });
    return act();
  }
  if (verdict.editor) {
    listing.editor = { which: 'adopted', entry: adopted.entry, path: adopted.entry.path };
    if (!takeover && !blocked) steps.push({ op: 'give-back', from: adopted.entry.path, why: ctx.takeoverOff! });
    return act();
  }
  listing.invalid.push({ path: adopted.entry.path, reason: verdict.reason });
  if (!(takeover && verdict.seen) && !blocked) steps.push({ op: 'give-back', from: adopted.entry.path, why: verdict.reason });
  return act();
}
