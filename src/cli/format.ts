// What the CLI prints for people (the `--json` forms print HubApi values as they are).
// Pure functions of HubApi values, so the wording is tested without a daemon.
import type {
  AutoconnectView,
  DecisionRecord,
  DiffSummary,
  EditorView,
  HostedPiView,
  PatchbaySettings,
  RemoteView,
  RestoreReport,
  ReviewModeView,
  SessionModels,
  SessionView,
  Snapshot,
  TraceEntry,
  TrafficEntry,
} from '../api/types.ts';
import { DIRECTIONS, byteSize, clockTime, durationText, requestTimings, rowLabels, shortId } from '../api/traffic.ts';
import { containingDepth } from '../broker/folders.ts';
import { editorLabel as editorName } from '../api/labels.ts';
import { awaitsDecision, decidingText, whatWasWritten } from '../review/decision-words.ts';
import { age, onOff, table } from './table.ts';

const dash = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === '' ? '-' : String(value);

/** A session served by no editor is reviewed in Patchbay. */
export function editorLabel(editorId: string | null): string {
  return editorId ?? 'patchbay';
}

function section(title: string, rows: string[][], header: string[], emptyText?: string): string {
  if (rows.length === 0) return emptyText === undefined ? '' : `${title}: ${emptyText}\n`;
  return `${title}:\n${table([header, ...rows])}`;
}

export function formatStatus(snapshot: Snapshot, host: string): string {
  const { door } = snapshot;
  const pending = snapshot.diffs.filter(awaitsDecision).length;
  const deciding = snapshot.diffs.filter((d) => d.status === 'pending' && d.deciding !== undefined).length;
  const applied = snapshot.diffs.filter((d) => d.status === 'applied').length;
  const core = snapshot.corePid === snapshot.pid ? '' : `, core ${snapshot.corePid}${coreHistory(snapshot)}`;
  let out = `Patchbay ${snapshot.version}, pid ${snapshot.pid}${core}${snapshot.paused ? ', routing PAUSED' : ''}\n`;
  // What needs the person first: what a crash left, and agents that did not come back.
  for (const notice of snapshot.notices) {
    out += `NOTICE ${notice.id} (${new Date(notice.at).toLocaleString()}): ${notice.message}\n`;
    for (const f of notice.files ?? []) out += `  ${f.path}: ${TRACE_WORDS[f.verdict]} (${f.diffId}, session ${f.sessionId}, ${f.agent})\n`;
  }
  if (snapshot.notices.length > 0) out += `  (patchbay dismiss <id>, or all, once read)\n`;
  out += section(
    'NOT RECONNECTED since Patchbay stopped',
    snapshot.notReconnected.map((l) => [l.sessionId, l.kind, String(l.pid), dash(l.cwd), l.hint]),
    ['WAS', 'KIND', 'PID', 'CWD', 'TO RECONNECT'],
  );
  out += door.port === null ? 'Door: not open\n' : `Door: ${host}:${door.port}\n`;
  for (const lockfile of door.lockfiles) out += `  ${lockfile}\n`;
  for (const problem of door.problems) out += `  STALE: ${problem}\n`;
  out += section(
    'Editors',
    snapshot.editors.map((e) => [
      e.id,
      editorName(e),
      e.workspaceFolders.join(', ') || '-',
      String(e.port),
      String(e.pid),
      e.dialect,
      e.alive ? 'yes' : e.link === 'taken' ? 'taken' : 'no',
    ]),
    ['ID', 'EDITOR', 'FOLDERS', 'PORT', 'PID', 'DIALECT', 'ALIVE'],
    'none',
  );
  for (const e of snapshot.editors) if (e.linkProblem) out += `  ${e.id} (${editorName(e)}): ${e.linkProblem}\n`;
  for (const e of snapshot.editors) {
    if (!e.authenticated) out += `  ${e.id} (${editorName(e)}): unauthenticated: its lockfile has no token, so any local user can reach it\n`;
  }
  out += section(
    'Sessions',
    snapshot.sessions.map((s) => [s.id, s.kind, dash(s.pid), sessionPlace(s), editorLabel(s.editorId), s.reason]),
    ['ID', 'KIND', 'PID', 'CWD', 'EDITOR', 'REASON'],
    'none',
  );
  if (snapshot.remotes.length > 0) out += `Remotes:\n${formatRemotes(snapshot.remotes, '  ')}`;
  out += section(
    'pi processes not connected',
    snapshot.idleAgents.map((a) => [String(a.pid), dash(a.cwd), a.reason]),
    ['PID', 'CWD', 'REASON'],
  );
  out += section(
    'Invalid lockfiles',
    snapshot.invalidLockfiles.map((l) => [l.path, l.reason]),
    ['PATH', 'REASON'],
  );
  out += section(
    "Other tools' lockfiles (another protocol's; left alone)",
    snapshot.otherLockfiles.map((l) => [l.path, l.description]),
    ['PATH', 'WHOSE'],
  );
  out += `Pending diffs: ${pending}${deciding > 0 ? ` (and ${deciding} decided, on ${deciding === 1 ? 'its' : 'their'} way to the agent)` : ''}\n`;
  if (applied > 0) out += `Applied, to review after: ${applied} (patchbay diffs)\n`;
  for (const warning of snapshot.warnings) out += `Warning: ${warning}\n`;
  return out;
}

/** A session's folder; a remote one's as `<remote>:<path>` (its pid is the remote's), with the folder here it maps to. */
function sessionPlace(s: SessionView): string {
  if (s.remote === undefined) return dash(s.cwd);
  const there = `${s.remote}:${s.cwd ?? '?'}`;
  if (s.cwd === null) return there;
  return s.localCwd ? `${there} (here ${s.localCwd})` : `${there} (no map covers it)`;
}

/** The remotes, how each is doing and why, their maps and lockfiles over there. */
export function formatRemotes(remotes: readonly RemoteView[], indent = ''): string {
  const rows = remotes.map((r) => [r.name, r.destination, r.state, dash(r.remotePort), r.maps.map((m) => `${m.remote}=${m.local}`).join(', ')]);
  let out = table([['NAME', 'DESTINATION', 'STATE', 'PORT', 'MAPS'], ...rows], indent);
  for (const r of remotes) {
    if (r.reason !== null) out += `${indent}  ${r.name}: ${r.state === 'connecting' ? 'reconnecting after: ' : ''}${r.reason}\n`;
    if (r.retryAt !== null) out += `${indent}  ${r.name}: tries again at ${new Date(r.retryAt).toLocaleTimeString()}\n`;
    for (const lockfile of r.lockfiles) out += `${indent}  ${r.name}: ${lockfile}\n`;
    for (const problem of r.problems) out += `${indent}  ${r.name}: ${problem}\n`;
  }
  return out;
}

const TRACE_WORDS: Record<TraceEntry['verdict'], string> = {
  written: 'WRITTEN WITHOUT REVIEW',
  'not-written': 'not written',
  changed: 'changed since',
  unknown: 'cannot tell',
};

/** ", restarted 2 times, the last after a crash" */
function coreHistory(snapshot: Snapshot): string {
  const { restarts, reason } = snapshot.core;
  if (restarts === 0) return '';
  return ` (restarted ${restarts} ${restarts === 1 ? 'time' : 'times'}, the last ${reason === 'crash' ? 'after a crash' : 'as asked'})`;
}

function diffPath(d: DiffSummary, now = 0): string {
  const remote = d.remote === undefined ? null : d.remote.mapped ? `from ${d.remote.name}` : `on ${d.remote.name} only: reviewed here`;
  const flags = [
    d.isNew && 'new file',
    d.tooLarge && 'too large to show',
    d.unreadable !== undefined && 'on disk: could not be read',
    d.inEditor && 'open in editor',
    remote,
    decidingText(d, now),
  ].filter(Boolean);
  return flags.length > 0 ? `${d.path} (${flags.join(', ')})` : d.path;
}

export function formatDiffList(diffs: DiffSummary[], history: DecisionRecord[], now: number): string {
  const pending = diffs.filter((d) => d.status === 'pending');
  const applied = diffs.filter((d) => d.status === 'applied');
  let out = section(
    'Pending',
    pending.map((d) => [d.id, d.sessionId, editorLabel(d.editorId), d.tool, age(d.createdAt, now), diffPath(d, now)]),
    ['ID', 'SESSION', 'EDITOR', 'TOOL', 'AGE', 'PATH'],
    'none',
  );
  out += section(
    'Applied, to review (patchbay diffs keep|undo <id>)',
    applied.map((d) => [d.id, d.sessionId, d.tool, changesText(d), d.turn?.label ?? '-', age(d.createdAt, now), diffPath(d)]),
    ['ID', 'SESSION', 'TOOL', 'CHANGES', 'TURN', 'AGE', 'PATH'],
  );
  out += section(
    'Recent decisions',
    history.map((r) => [r.id, `${statusText(r)}${whatWasWritten(r, ' (', ')')}`, r.by, `${age(r.at, now)} ago`, r.path]),
    ['ID', 'OUTCOME', 'BY', 'WHEN', 'PATH'],
  );
  return out;
}

/** "3 changes", "3 changes, 2 undone". */
function changesText(d: DiffSummary): string {
  const n = d.changes?.length ?? 0;
  const undone = d.undone?.length ? `, ${d.undone.length === 1 ? 'change' : 'changes'} ${d.undone.join(', ')} undone` : '';
  return `${n} ${n === 1 ? 'change' : 'changes'}${undone}`;
}

/** Where an edit is now: its outcome, and what a review after made of it ("applied, kept", "accepted, change 2 undone"). */
export function statusText(record: DecisionRecord): string {
  const undone = record.status !== 'undone' && record.undone?.length ? `, ${record.undone.length === 1 ? 'change' : 'changes'} ${record.undone.join(', ')} undone` : '';
  const now = record.status === record.outcome ? '' : `, ${record.status}`;
  return `${record.outcome}${now}${undone}`;
}

/** What a keep or an undo did, and how the agent heard of it. */
export function formatReviewed(record: DecisionRecord): string {
  const what =
    record.status === 'kept'
      ? 'kept'
      : record.status === 'undone'
        ? 'undone'
        : record.undone?.length
          ? `partly undone (${record.undone.length === 1 ? 'change' : 'changes'} ${record.undone.join(', ')})`
          : record.status;
  const heard = record.afterwards
    ? `  ${record.agent} ${record.afterwards.heard === 'steered' ? 'was steered with' : record.afterwards.heard === 'diagnostics' ? 'reads at its next diagnostics' : 'is not connected; the history keeps'}: ${record.afterwards.told}\n`
    : '';
  return `${what} ${record.id} ${record.path}\n${heard}`;
}

/** A past decision in words: "d3 accepted in the editor nvim-proj, 2 of 3 changes (pi-ide, 2026-11-23 14:02)". */
export function formatDecided(record: DecisionRecord): string {
  const where = record.by === 'editor' ? `in the editor ${record.editorId ?? ''}`.trimEnd() : DECIDED_BY[record.by];
  const when = new Date(record.at).toISOString().slice(0, 16).replace('T', ' ');
  const reason = record.reason ? `\n  reason: ${record.reason}` : '';
  return `${record.id} ${statusText(record)} ${where}${whatWasWritten(record, ', ')} (${record.agent}, ${when} UTC)${reason}\n`;
}

const DECIDED_BY: Record<Exclude<DecisionRecord['by'], 'editor'>, string> = {
  patchbay: 'in Patchbay',
  agent: 'by the agent',
  shutdown: 'as Patchbay stopped',
  crash: 'by nobody: Patchbay stopped unexpectedly (pi-ide may have written it without review)',
  'review-after': 'at once (its folder is reviewed after)',
};

/** What the agent was told in words, when it was told more than FILE_SAVED / DIFF_REJECTED. */
export function formatDecision(record: DecisionRecord): string {
  const told = record.told ? `  ${record.agent} was told: ${record.told}\n` : '';
  return `${record.outcome} ${record.id} ${record.path}${whatWasWritten(record, ' (', ')')}\n${told}`;
}

export function formatBinding(session: SessionView): string {
  const target = session.editorId === null ? 'Patchbay review' : `editor ${session.editorId}`;
  return `session ${session.id} → ${target} (${session.reason})\n`;
}

/** When the editor now serving a session has other folders open, what that means for the session. */
export function outsideFolderWarning(session: SessionView, editors: readonly EditorView[]): string | null {
  const editor = editors.find((e) => e.id === session.editorId);
  if (editor === undefined || session.cwd === null || containingDepth(editor.workspaceFolders, session.cwd) >= 0) return null;
  const folders = editor.workspaceFolders.join(', ') || 'none';
  return `editor ${editor.id}'s folders (${folders}) do not contain ${session.cwd}: its diagnostics and open files are about another project, and the agent's edits open there`;
}

export function formatRestore(report: RestoreReport): string {
  const warnings = (report.warnings ?? []).map((w) => `Warning: ${w}\n`);
  if (report.restored.length === 0 && report.removed.length === 0) return ['Nothing to restore.\n', ...warnings].join('');
  return [...report.restored.map((p) => `restored ${p}\n`), ...report.removed.map((p) => `removed ${p}\n`), ...warnings].join('');
}

/** Where a session's own CLI flag wins over Patchbay's choice, say so. */
export function overrideWarnings(models: SessionModels[]): string[] {
  return models
    .filter((m) => m.cliOverride !== null)
    .map((m) => `session ${m.sessionId} was started with a suggestion model override (${m.cliOverride}); it ignores the choice made here`);
}

export function formatModels(list: SessionModels[]): string {
  if (list.length === 0) return 'No sessions report suggestion models.\n';
  return list
    .map((m) => {
      const facts = [`current ${dash(m.currentModel)}`];
      if (m.cliOverride !== null) facts.push(`CLI override ${m.cliOverride}`);
      let out = `Session ${m.sessionId}: ${facts.join(', ')}\n`;
      if (m.error !== null) out += `  error: ${m.error}\n`;
      else if (m.models.length === 0) out += '  no models\n';
      else out += table([['MODEL', 'NAME'], ...m.models.map((x) => [`${x.provider}/${x.id}`, x.name])]);
      return out;
    })
    .join('');
}

export function formatSuggestionChoices(settings: PatchbaySettings, editorId?: string): string {
  if (editorId !== undefined) {
    const own = settings.suggestionModelPerEditor[editorId];
    return own === undefined
      ? `editor ${editorId}: ${settings.suggestionModel} (the global choice)\n`
      : `editor ${editorId}: ${own}\n`;
  }
  const rows = [['global', settings.suggestionModel]];
  for (const [id, choice] of Object.entries(settings.suggestionModelPerEditor).sort(([a], [b]) => a.localeCompare(b))) {
    rows.push([`editor ${id}`, choice]);
  }
  return table(rows, '');
}

export function formatReviewMode(view: ReviewModeView): string {
  const rows = [['global', view.global]];
  if (view.project !== null) {
    rows.push(['project', view.projectMode ?? '-', view.project]);
    if (view.from !== null && view.from !== view.project) rows.push(['from', view.effective, view.from]);
  }
  rows.push(['effective', view.effective, view.effective === 'after' ? 'edits are written at once; keep or undo them after' : 'edits wait for your decision before they are written']);
  return table(rows, '');
}

export function formatAutoconnect(view: AutoconnectView): string {
  const rows = [['global', onOff(view.global), view.globalFile]];
  if (view.projectFile !== null) rows.push(['project', onOff(view.project), view.projectFile]);
  rows.push(['effective', onOff(view.effective)]);
  return table(rows, '');
}

const PI_COMMAND_SOURCES: Record<HostedPiView['commandSource'], string> = {
  settings: 'the piCommand setting',
  environment: "the daemon's $PATCHBAY_PI_COMMAND",
  default: 'pi on PATH: nothing else is set',
};

export function formatSettings(settings: PatchbaySettings, hostedPi: HostedPiView): string {
  const rows = Object.entries(settings)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => [key, JSON.stringify(value)]);
  return `${table(rows, '')}Hosted pi runs ${JSON.stringify(hostedPi.command)} (from ${PI_COMMAND_SOURCES[hostedPi.commandSource]}).\n`;
}

const PREVIEW_CHARS = 100;

function oneLine(text: string, max: number): string {
  const chars = [...text.replace(/\s+/g, ' ')]; // code points: never half a surrogate pair
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/** One line per frame, oldest first: time, direction, method, id, size, answer time, preview. */
export function formatTraffic(entries: readonly TrafficEntry[]): string {
  if (entries.length === 0) return 'No traffic recorded for this session.\n';
  const timings = requestTimings(entries);
  const labels = rowLabels(entries);
  const rows = entries.map((e, index) => {
    const took = timings.get(index);
    return [
      clockTime(e.at),
      DIRECTIONS.find((d) => d.dir === e.dir)?.arrow ?? e.dir,
      labels[index]!,
      shortId(e.id),
      byteSize(e.bytes),
      took === undefined ? '' : durationText(took),
      oneLine(e.preview, PREVIEW_CHARS),
    ];
  });
  return table([['TIME', 'DIR', 'METHOD', 'ID', 'SIZE', 'TOOK', 'FRAME'], ...rows], '');
}
