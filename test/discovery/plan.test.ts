import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LockEntry } from '../../src/protocol/lockfile.ts';
import { planLockfile, type Candidate, type FileState, type PlanContext, type ProbeOutcome, type Which } from '../../src/discovery/plan.ts';

const ME = 1000;
const PORT = 4711;
const TOP = `/l/${PORT}.lock`;
const HELD = `/l/.patchbay/${PORT}.lock`;

function entry(path: string, uid = ME, pid = 42): LockEntry {
  return {
    path,
    dir: '/l',
    port: PORT,
    lock: { pid, workspaceFolders: ['/p'], ideName: 'Neovim', transport: 'ws', authToken: 't' },
    dialect: 'pi',
    mtimeMs: 0,
    uid,
    mode: 0o600,
  };
}

const lock = (path: string, alive = true): FileState => ({ kind: 'lock', entry: entry(path), alive });
const foreign = (path: string): FileState => ({ kind: 'foreign', entry: entry(path, 65534) });
const garbage = (path: string): FileState => ({ kind: 'invalid', path, reason: 'not JSON' });
const unreadable = (path: string): FileState => ({ kind: 'unreadable', path, reason: 'cannot open: EMFILE' });
const theirs = (path: string): FileState => ({ kind: 'other', other: { path, protocol: 'pi-ide', description: 'Pi IDE Protocol v1' } });

const ok: ProbeOutcome = { result: 'ok', aliveAfter: true, holdsPort: true };
const okUnknownHolder: ProbeOutcome = { result: 'ok', aliveAfter: true, holdsPort: null };
const otherHolder: ProbeOutcome = { result: 'ok', aliveAfter: true, holdsPort: false };
const refused: ProbeOutcome = { result: 'refused', aliveAfter: true, holdsPort: null };
const refusedThenDead: ProbeOutcome = { result: 'refused', aliveAfter: false, holdsPort: null };
const notWs: ProbeOutcome = { result: 'not-websocket', aliveAfter: true, holdsPort: null };
const emfile: ProbeOutcome = { result: 'local-error:EMFILE', aliveAfter: true, holdsPort: null };

const on: PlanContext = { takeoverOff: null, uid: ME, probeTimeoutMs: 500 };
const off: PlanContext = { ...on, takeoverOff: 'takeover is off' };

interface Case {
  name: string;
  top: FileState | null;
  adopted: FileState | null;
  probes?: Partial<Record<Which, ProbeOutcome>>;
  ctx?: PlanContext;
  /** The editor's location before the steps, the steps as `op path`, the listed paths. */
  want: { editor: Which | null; steps: string[]; invalid: string[]; others?: string[] } | { keep: true };
}

const cases: Case[] = [
  // A live editor's file where agents look
  { name: 'a live editor is adopted', top: lock(TOP), adopted: null, probes: { top: ok }, want: { editor: 'top', steps: [`adopt ${TOP}`], invalid: [] } },
  { name: 'a live editor whose port holder cannot be told is still adopted', top: lock(TOP), adopted: null, probes: { top: okUnknownHolder }, want: { editor: 'top', steps: [`adopt ${TOP}`], invalid: [] } },
  { name: 'without takeover a live editor stays where it is', top: lock(TOP), adopted: null, probes: { top: ok }, ctx: off, want: { editor: 'top', steps: [], invalid: [] } },
  { name: 'a newer lockfile replaces the adopted copy', top: lock(TOP), adopted: lock(HELD), probes: { top: ok, adopted: ok }, want: { editor: 'top', steps: [`adopt ${TOP}`], invalid: [] } },
  { name: 'without takeover a newer lockfile makes the adopted copy go', top: lock(TOP), adopted: lock(HELD), probes: { top: ok, adopted: ok }, ctx: off, want: { editor: 'top', steps: [`remove ${HELD}`], invalid: [] } },
  // Not editors
  { name: 'a dead pid is listed, nothing moves', top: lock(TOP, false), adopted: null, want: { editor: null, steps: [], invalid: [TOP] } },
  { name: 'a pid that does not hold the port is no editor, held aside since agents would count it', top: lock(TOP), adopted: null, probes: { top: otherHolder }, want: { editor: null, steps: [`adopt ${TOP}`], invalid: [TOP] } },
  { name: 'a live pid on a port that is not a WebSocket is held aside', top: lock(TOP), adopted: null, probes: { top: notWs }, want: { editor: null, steps: [`adopt ${TOP}`], invalid: [TOP] } },
  { name: 'a live pid on a closed port stays (agents would not count it)', top: lock(TOP), adopted: null, probes: { top: refused }, want: { editor: null, steps: [], invalid: [TOP] } },
  { name: 'another user’s lockfile is listed, never adopted', top: foreign(TOP), adopted: null, want: { editor: null, steps: [], invalid: [TOP] } },
  { name: 'garbage is listed, nothing moves', top: garbage(TOP), adopted: null, want: { editor: null, steps: [], invalid: [TOP] } },
  // The adopted file on its own
  { name: 'an adopted live editor stays adopted', top: null, adopted: lock(HELD), probes: { adopted: ok }, want: { editor: 'adopted', steps: [], invalid: [] } },
  { name: 'without takeover an adopted live editor is given back', top: null, adopted: lock(HELD), probes: { adopted: ok }, ctx: off, want: { editor: 'adopted', steps: [`give-back ${HELD}`], invalid: [] } },
  { name: 'an adopted editor whose pid died is deleted', top: null, adopted: lock(HELD, false), want: { editor: null, steps: [`remove ${HELD}`], invalid: [] } },
  { name: 'an adopted editor that died during its probe is deleted', top: null, adopted: lock(HELD), probes: { adopted: refusedThenDead }, want: { editor: null, steps: [`remove ${HELD}`], invalid: [] } },
  { name: 'an adopted editor whose port closed is deleted, not given back, though its pid still lives (it is quitting)', top: null, adopted: lock(HELD), probes: { adopted: refused }, want: { editor: null, steps: [`remove ${HELD}`], invalid: [] } },
  { name: 'an unusable adopted file goes back where nothing sits', top: null, adopted: garbage(HELD), want: { editor: null, steps: [`give-back ${HELD}`], invalid: [HELD] } },
  // Hole 6: whatever appears at an adopted editor's original path does not remove it
  { name: 'garbage at an adopted editor’s path leaves the editor adopted', top: garbage(TOP), adopted: lock(HELD), probes: { adopted: ok }, want: { editor: 'adopted', steps: [], invalid: [TOP] } },
  { name: 'another user’s file at an adopted editor’s path leaves the editor adopted', top: foreign(TOP), adopted: lock(HELD), probes: { adopted: ok }, want: { editor: 'adopted', steps: [], invalid: [TOP] } },
  { name: 'a dead lockfile at an adopted editor’s path leaves the editor adopted', top: lock(TOP, false), adopted: lock(HELD), probes: { adopted: ok }, want: { editor: 'adopted', steps: [], invalid: [TOP] } },
  { name: 'without takeover the adopted editor goes back over garbage (the executor moves it aside)', top: garbage(TOP), adopted: lock(HELD), probes: { adopted: ok }, ctx: off, want: { editor: 'adopted', steps: [`give-back ${HELD}`], invalid: [TOP] } },
  { name: 'a give-back never runs into a live editor’s lockfile of ours', top: lock(TOP), adopted: lock(HELD), probes: { top: refused, adopted: notWs }, want: { editor: null, steps: [], invalid: [TOP, HELD] } },
  // Another tool's lockfile (another protocol's): listed apart, nothing ever moves it or onto it
  { name: 'another tool’s lockfile is listed as such, nothing moves', top: theirs(TOP), adopted: null, want: { editor: null, steps: [], invalid: [], others: [TOP] } },
  { name: 'another tool’s lockfile at an adopted editor’s path leaves the editor adopted', top: theirs(TOP), adopted: lock(HELD), probes: { adopted: ok }, want: { editor: 'adopted', steps: [], invalid: [], others: [TOP] } },
  { name: 'without takeover an adopted editor is not given back onto another tool’s lockfile', top: theirs(TOP), adopted: lock(HELD), probes: { adopted: ok }, ctx: off, want: { editor: 'adopted', steps: [], invalid: [], others: [TOP] } },
  { name: 'an adopted no-editor is not given back onto another tool’s lockfile either', top: theirs(TOP), adopted: lock(HELD), probes: { adopted: notWs }, want: { editor: null, steps: [], invalid: [HELD], others: [TOP] } },
  { name: 'an adopted editor whose port closed behind another tool’s lockfile is deleted, theirs stays', top: theirs(TOP), adopted: lock(HELD), probes: { adopted: refused }, want: { editor: null, steps: [`remove ${HELD}`], invalid: [], others: [TOP] } },
  { name: 'a dead adopted editor behind another tool’s lockfile is deleted, theirs stays', top: theirs(TOP), adopted: lock(HELD, false), want: { editor: null, steps: [`remove ${HELD}`], invalid: [], others: [TOP] } },
  // Hole 5: this machine's trouble is never "the editor is gone"
  { name: 'a probe that failed for lack of descriptors keeps everything', top: null, adopted: lock(HELD), probes: { adopted: emfile }, want: { keep: true } },
  { name: 'a lockfile unreadable for lack of descriptors keeps everything', top: unreadable(TOP), adopted: lock(HELD), want: { keep: true } },
];

describe('planLockfile', () => {
  for (const c of cases) {
    test(c.name, () => {
      const candidate: Candidate = { port: PORT, top: c.top, adopted: c.adopted };
      const ctx = c.ctx ?? on;
      let plan = planLockfile(candidate, {}, ctx);
      if (plan.kind === 'probe') {
        for (const which of plan.which) assert.ok(c.probes?.[which], `the plan asks for a probe of ${which} the case does not give`);
        plan = planLockfile(candidate, c.probes ?? {}, ctx);
      }
      if ('keep' in c.want) {
        assert.equal(plan.kind, 'keep');
        return;
      }
      assert.equal(plan.kind, 'act');
      if (plan.kind !== 'act') return;
      assert.equal(plan.editor?.which ?? null, c.want.editor);
      assert.deepEqual(
        plan.steps.map((s) => `${s.op} ${s.op === 'remove' ? s.path : s.from}`),
        c.want.steps,
      );
      assert.deepEqual(plan.invalid.map((i) => i.path).sort(), [...c.want.invalid].sort());
      assert.deepEqual(plan.others.map((o) => o.path), c.want.others ?? []);
    });
  }

  test('only live lockfiles are probed, and asked for before anything is decided', () => {
    const plan = planLockfile({ port: PORT, top: lock(TOP), adopted: lock(HELD, false) }, {}, on);
    assert.deepEqual(plan, { kind: 'probe', which: ['top'] });
  });

  test('another user’s lockfile is refused with both uids named', () => {
    const plan = planLockfile({ port: PORT, top: foreign(TOP), adopted: null }, {}, on);
    assert.equal(plan.kind, 'act');
    if (plan.kind === 'act') assert.match(plan.invalid[0]!.reason, /uid 65534, not by you \(uid 1000\)/);
  });
});
