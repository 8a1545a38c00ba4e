// The commands that are one or two HubApi calls through the running daemon.
// Every `patchbay` call loads this module: what only one command needs is imported in it.
import { readFile, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIRECTIONS, filterTraffic } from '../api/traffic.ts';
import type { AutoconnectView, DiffDetail, HubApi, PatchbaySettings, ReviewMode, ReviewModeView } from '../api/types.ts';
import { readArgFile } from './arg-file.ts';
import { colorDiff, colorWanted } from './color.ts';
import { isLocalOnlySetting, localSettingTakesEffect, type LocalOnlySetting } from '../settings/local-only.ts';
import { UsageError, parse, positionals, printJson, type Command, type CommandContext } from './command.ts';
import { watchStatus } from './events.ts';
import {
  formatAutoconnect,
  formatBinding,
  formatDecided,
  formatDecision,
  formatDiffList,
  formatModels,
  formatReviewed,
  formatReviewMode,
  formatSettings,
  formatStatus,
  formatSuggestionChoices,
  formatTraffic,
  outsideFolderWarning,
  overrideWarnings,
} from './format.ts';

/** Edited contents given for a diff: as much as a diff may propose (the default frame cap). */
const MAX_CONTENTS_BYTES = 64 * 1024 * 1024;

// For `open` alone: the HTTP client and child_process load when it runs.
const controlClient = () => import('../web/control-client.ts');
const openInBrowser = async (url: string, env: NodeJS.ProcessEnv): Promise<string | null> => (await import('./open-browser.ts')).openInBrowser(url, env);

export const status: Command = {
  summary: 'Show the door, editors, sessions and pending diffs',
  usage: `Usage: patchbay status [--json] [--watch]
  --watch  print it again whenever it changes, until interrupted (with --json: one line each)`,
  async run(args, ctx) {
    const { values, positionals: rest } = parse(args, { json: { type: 'boolean' }, watch: { type: 'boolean' } });
    positionals(rest, []);
    if (values.watch) return watchStatus(ctx, values.json === true);
    let hub;
    try {
      hub = await ctx.connect();
    } catch (err) {
      // Not running: say what a Patchbay that died left behind, and how to clear it.
      const { NotRunningError } = await import('../web/control-client.ts');
      if (!(err instanceof NotRunningError)) throw err;
      const { leftoversOnDisk, leftoversText } = await import('./restore.ts');
      const traces = leftoversText(await leftoversOnDisk(ctx.options));
      if (traces === null) throw err;
      ctx.io.stderr.write(`patchbay: ${err.message}\n${traces}`);
      return 1;
    }
    const snapshot = await hub.call('snapshot', undefined);
    if (values.json) printJson(ctx.io, snapshot);
    else ctx.io.stdout.write(formatStatus(snapshot, ctx.options.host));
    return 0;
  },
};

export const bind: Command = {
  summary: 'Bind a session to an editor, to Patchbay’s own review (none), or back to automatic (auto)',
  usage: `Usage: patchbay bind <sessionId> <editorId|none|auto>
The choice is remembered for the agent's folder; auto forgets it and lets the rules decide.`,
  async run(args, ctx) {
    const [sessionId, editor] = positionals(parse(args, {}).positionals, ['sessionId', 'editorId|none|auto']) as [string, string];
    const hub = await ctx.connect();
    const session =
      editor === 'auto'
        ? await hub.call('unpin', { sessionId })
        : await hub.call('bind', { sessionId, editorId: editor === 'none' ? null : editor });
    ctx.io.stdout.write(formatBinding(session));
    const warning = session.editorId === null ? null : outsideFolderWarning(session, (await hub.call('snapshot', undefined)).editors);
    if (warning !== null) ctx.io.stderr.write(`patchbay: warning: ${warning}\n`);
    return 0;
  },
};

/**
 * A unified diff from the on-disk contents ('' for a new file) to what an accepted diff wrote,
 * or else to the proposal (pending or rejected).
 */
export async function unifiedDiff(detail: DiffDetail): Promise<{ patch: string; summary: string }> {
  const { changeModel, lineCounts, unifiedPatch } = await import('../review/changes.ts');
  const oldHeader = detail.isNew
    ? 'new file'
    : detail.tooLarge
      ? 'on disk (too large to show)'
      : detail.unreadable !== undefined
        ? `on disk (could not be read: ${detail.unreadable})`
        : 'on disk';
  const written = detail.finalContents !== null;
  const newHeader = written ? (detail.decision?.edited ? 'written (edited)' : 'written') : detail.decision ? 'proposed (rejected)' : 'proposed';
  // The same changes, numbered the same, as the review editor shows (and `accept --changes` takes).
  const model = changeModel(detail.oldContents ?? '', detail.finalContents ?? detail.newContents);
  const { added, removed } = lineCounts(model.changes);
  const count = model.changes.length;
  const summary = `${count} ${count === 1 ? 'change' : 'changes'}, +${added} −${removed} lines${model.precise ? '' : ' (too different to split further)'}`;
  return { patch: unifiedPatch(model, { path: detail.path, oldHeader, newHeader }), summary };
}

const DIFFS_USAGE = `Usage:
  patchbay diffs [--json]                         pending diffs and recent decisions
  patchbay diffs show <id>                        the edit as a unified diff, its changes numbered
                                                  (decided: what was written)
  patchbay diffs accept <id> [--changes 1,3] [--contents-file F] [--reason TEXT]
      --changes        write only these changes (numbered as diffs show numbers them);
                       the others keep the file's lines
      --contents-file  write F's contents instead
      --reason         words the agent receives with the decision
  patchbay diffs reject <id> [--reason TEXT]
  patchbay diffs accept-all --session <id>
  patchbay diffs reject-all --session <id>
  patchbay diffs keep <id> [--reason TEXT]        an applied edit (review after) is reviewed
  patchbay diffs undo <id> [--changes 1,3] [--reason TEXT]
      takes the edit's changes (all by default) back in the file as it is now; later edits
      to other lines stay. Refuses, changing nothing, where those lines changed since.
      Works for applied edits and, from the history, for accepted ones.`;

/** "1,3" or "1 3" → [1, 3]. */
function changeNumbers(text: string): number[] {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  const numbers = parts.map(Number);
  if (parts.length === 0 || numbers.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new UsageError(`--changes takes change numbers such as 1,3 (as diffs show numbers them), not "${text}"`);
  }
  return numbers;
}

async function decideAll(args: string[], ctx: CommandContext, method: 'diffs.acceptAll' | 'diffs.rejectAll'): Promise<number> {
  const { values, positionals: rest } = parse(args, { session: { type: 'string' } });
  positionals(rest, []);
  if (values.session === undefined) throw new UsageError('--session <id> is required');
  const records = await (await ctx.connect()).call(method, { sessionId: values.session });
  if (records.length === 0) ctx.io.stdout.write(`No pending diffs in session ${values.session}.\n`);
  for (const record of records) ctx.io.stdout.write(formatDecision(record));
  return 0;
}

export const diffs: Command = {
  summary: 'List, show, accept and reject proposed edits',
  usage: DIFFS_USAGE,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'show': {
        const [id] = positionals(parse(rest, {}).positionals, ['id']) as [string];
        const detail = await (await ctx.connect()).call('diffs.get', { id });
        // On stderr: stdout stays a patch that scripts can apply.
        if (detail.decision) ctx.io.stderr.write(`patchbay: ${formatDecided(detail.decision)}`);
        if (detail.contentsNotKept) {
          ctx.io.stderr.write(`patchbay: what was proposed and written for ${id} is not kept: ${detail.contentsNotKept}\n`);
          return 0;
        }
        if (detail.tooLarge && detail.oldContents === null) {
          ctx.io.stderr.write(`patchbay: ${detail.path} was too large to keep; the diff shows the proposed contents as new\n`);
        }
        const { patch, summary } = await unifiedDiff(detail);
        ctx.io.stderr.write(`patchbay: ${id}: ${summary}\n`);
        ctx.io.stdout.write(colorWanted(ctx.io.stdout, ctx.io.env) ? colorDiff(patch) : patch);
        return 0;
      }
      case 'accept': {
        const { values, positionals: given } = parse(rest, {
          'contents-file': { type: 'string' },
          changes: { type: 'string' },
          reason: { type: 'string' },
        });
        const [id] = positionals(given, ['id']) as [string];
        const file = values['contents-file'];
        const changes = values.changes === undefined ? undefined : changeNumbers(values.changes);
        const contents = file === undefined ? undefined : (await readArgFile(ctx.io.cwd, file, MAX_CONTENTS_BYTES, '--contents-file')).toString('utf8');
        const record = await (await ctx.connect()).call('diffs.accept', {
          id,
          ...(contents !== undefined ? { contents } : {}),
          ...(changes !== undefined ? { changes } : {}),
          ...(values.reason !== undefined ? { reason: values.reason } : {}),
        });
        ctx.io.stdout.write(formatDecision(record));
        return 0;
      }
      case 'reject': {
        const { values, positionals: given } = parse(rest, { reason: { type: 'string' } });
        const [id] = positionals(given, ['id']) as [string];
        const record = await (await ctx.connect()).call('diffs.reject', values.reason === undefined ? { id } : { id, reason: values.reason });
        ctx.io.stdout.write(formatDecision(record));
        return 0;
      }
      case 'keep':
      case 'undo': {
        const { values, positionals: given } = parse(rest, sub === 'undo' ? { changes: { type: 'string' }, reason: { type: 'string' } } : { reason: { type: 'string' } });
        const [id] = positionals(given, ['id']) as [string];
        const reason = typeof values.reason === 'string' ? { reason: values.reason } : {};
        const hub = await ctx.connect();
        const changes = typeof values.changes === 'string' ? changeNumbers(values.changes) : undefined;
        const record =
          sub === 'keep' ? await hub.call('diffs.keep', { id, ...reason }) : await hub.call('diffs.undo', { id, ...(changes ? { changes } : {}), ...reason });
        ctx.io.stdout.write(formatReviewed(record));
        return 0;
      }
      case 'accept-all':
        return decideAll(rest, ctx, 'diffs.acceptAll');
      case 'reject-all':
        return decideAll(rest, ctx, 'diffs.rejectAll');
      default: {
        if (sub !== undefined && !sub.startsWith('-')) throw new UsageError(`unknown diffs command "${sub}"`);
        const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
        positionals(given, []);
        const snapshot = await (await ctx.connect()).call('snapshot', undefined);
        if (values.json) printJson(ctx.io, { diffs: snapshot.diffs, history: snapshot.history });
        else ctx.io.stdout.write(formatDiffList(snapshot.diffs, snapshot.history, ctx.now()));
        return 0;
      }
    }
  },
};

export const models: Command = {
  summary: 'List the suggestion models each pi session offers',
  usage: `Usage: patchbay models [--session <id>] [--refresh] [--json]
  --refresh  ask the session again (needs --session)`,
  async run(args, ctx) {
    const { values, positionals: rest } = parse(args, {
      session: { type: 'string' },
      refresh: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    positionals(rest, []);
    if (values.refresh && values.session === undefined) throw new UsageError('--refresh needs --session <id>');
    const hub = await ctx.connect();
    const list = values.refresh
      ? [await hub.call('models.refresh', { sessionId: values.session! })]
      : await hub.call('models.list', values.session === undefined ? {} : { sessionId: values.session });
    if (values.json) printJson(ctx.io, list);
    else ctx.io.stdout.write(formatModels(list));
    return 0;
  },
};

async function warnAboutOverrides(hub: HubApi, ctx: CommandContext): Promise<void> {
  for (const warning of overrideWarnings(await hub.call('models.list', {}))) {
    ctx.io.stderr.write(`patchbay: warning: ${warning}\n`);
  }
}

export const suggestionModel: Command = {
  summary: 'Show or choose the model for editors’ inline suggestions',
  usage: `Usage: patchbay suggestion-model [<provider/id>|editor|session] [--editor <id>]
  editor    pass the editor's own choice through
  session   use the session's current model
  --editor  choose for this editor only (default: the global choice)
Without a value, prints the current choices.`,
  async run(args, ctx) {
    const { values, positionals: given } = parse(args, { editor: { type: 'string' } });
    const [choice] = positionals(given, ['choice'], 1);
    const hub = await ctx.connect();
    const editorId = values.editor;
    let settings: PatchbaySettings;
    if (choice === undefined) settings = await hub.call('settings.get', undefined);
    else settings = await hub.call('suggestionModel.set', editorId === undefined ? { choice } : { choice, editorId });
    ctx.io.stdout.write(formatSuggestionChoices(settings, editorId));
    await warnAboutOverrides(hub, ctx);
    return 0;
  },
};

/**
 * `<command> [--project <dir>] [<word>] [--json]`: prints a setting that holds globally or for a
 * folder (and what holds there), or sets it from one of `words` (`unset` among them).
 */
function folderSetting<V, View>(spec: {
  summary: string;
  usage: string;
  words: Record<string, V>;
  get(hub: HubApi, where: { project?: string }): Promise<View>;
  set(hub: HubApi, where: { project?: string }, value: V): Promise<View>;
  format(view: View): string;
}): Command {
  const names = Object.keys(spec.words);
  return {
    summary: spec.summary,
    usage: spec.usage,
    async run(args, ctx) {
      const { values, positionals: given } = parse(args, { project: { type: 'string' }, json: { type: 'boolean' } });
      const [word] = positionals(given, [names.join('|')], 1);
      if (word !== undefined && !Object.hasOwn(spec.words, word)) throw new UsageError(`expected ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, not "${word}"`);
      const where = values.project === undefined ? {} : { project: resolve(ctx.io.cwd, values.project) };
      const hub = await ctx.connect();
      const view = word === undefined ? await spec.get(hub, where) : await spec.set(hub, where, spec.words[word]!);
      if (values.json) printJson(ctx.io, view);
      else ctx.io.stdout.write(spec.format(view));
      return 0;
    },
  };
}

export const reviewMode = folderSetting<ReviewMode | null, ReviewModeView>({
  summary: 'Show or set when edits are reviewed (before they are written, or after), globally or for a folder',
  usage: `Usage: patchbay review-mode [--project <dir>] [before|after|unset] [--json]
  before   edits wait for your decision before they are written (the default)
  after    edits are written at once; keep or undo them later (patchbay diffs keep|undo)
  unset    the folder follows its parent folder's setting, or the global one (globally: before)
  --project  the folder (and its subfolders); default: globally
Without a value, prints the setting and what holds there.`,
  words: { before: 'before', after: 'after', unset: null },
  get: (hub, where) => hub.call('reviewMode.get', where),
  set: (hub, where, value) => hub.call('reviewMode.set', { ...where, value }),
  format: formatReviewMode,
});

export const autoconnect = folderSetting<boolean | null, AutoconnectView>({
  summary: 'Show or set pi-ide’s autoconnect, globally or for a project',
  usage: `Usage: patchbay autoconnect [--project <dir>] [on|off|unset] [--json]
  --project  the project folder (its .pi/settings.json); default: pi's global settings
Without a value, prints the global and project values and the effective one.`,
  words: { on: true, off: false, unset: null },
  get: (hub, where) => hub.call('autoconnect.get', where),
  set: (hub, where, value) => hub.call('autoconnect.set', { ...where, value }),
  format: formatAutoconnect,
});

/**
 * piCommand, allowPiExtensions, trustedLockDirs: what makes Patchbay run a program or trust
 * others' files is written by the person (this process, as them) to config.json, never sent
 * over the API. A running Patchbay reads it again when asked for its settings (at once, below).
 */
async function setLocalSetting(ctx: CommandContext, key: LocalOnlySetting, value: unknown): Promise<number> {
  const [{ checkHome }, { PatchbayStore }, { NotRunningError }] = await Promise.all([
    import('../fs/home-check.ts'),
    import('../settings/store.ts'),
    import('../web/control-client.ts'),
  ]);
  await checkHome(ctx.options.home);
  const store = PatchbayStore.open(ctx.options.home);
  const updated = store.updateSettings({ [key]: value }, { local: true });
  // Saved whatever happens next: a daemon that cannot be told now reads it before it starts pi.
  const running = await ctx.connect().then(
    (hub) => hub.call('settings.get', undefined).then(() => true),
    (err: unknown) => {
      if (err instanceof NotRunningError) return false;
      ctx.io.stderr.write(`patchbay: warning: could not tell the running Patchbay (${(err as Error).message})\n`);
      return true;
    },
  );
  ctx.io.stdout.write(`${key} ${JSON.stringify(updated[key])} (in ${store.path}; ${localSettingTakesEffect(key, running)})\n`);
  return 0;
}

export const settings: Command = {
  summary: 'Show or change Patchbay’s own settings',
  usage: `Usage:
  patchbay settings [--json]
  patchbay settings set <key> <json-value>   e.g. settings set diagnosticsDeadlineMs 2000
piCommand and allowPiExtensions decide what Patchbay runs, trustedLockDirs whose lockfiles it
trusts: only this command (run as you) or an edit of config.json changes them, never the UI or
the API; the daemon need not be running.
  patchbay settings set piCommand '"/opt/pi/bin/pi"'   ('""': $PATCHBAY_PI_COMMAND, else pi on PATH)
  patchbay settings set allowPiExtensions true
  patchbay settings set trustedLockDirs '["/srv/shared/ide"]'`,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    if (sub === 'set') {
      const [key, text] = positionals(parse(rest, {}).positionals, ['key', 'json-value']) as [string, string];
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new UsageError(`the value of ${key} must be JSON (quote strings: '"${text}"')`);
      }
      if (isLocalOnlySetting(key)) return setLocalSetting(ctx, key, value);
      const hub = await ctx.connect();
      const current = await hub.call('settings.get', undefined);
      if (!Object.hasOwn(current, key)) {
        throw new UsageError(`unknown setting "${key}" (known: ${Object.keys(current).sort().join(', ')})`);
      }
      const updated = await hub.call('settings.set', { patch: { [key]: value } as Partial<PatchbaySettings> });
      ctx.io.stdout.write(`${key} ${JSON.stringify(updated[key as keyof PatchbaySettings])}\n`);
      return 0;
    }
    if (sub !== undefined && !sub.startsWith('-')) throw new UsageError(`unknown settings command "${sub}"`);
    const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
    positionals(given, []);
    const hub = await ctx.connect();
    const current = await hub.call('settings.get', undefined);
    if (values.json) printJson(ctx.io, current);
    else ctx.io.stdout.write(formatSettings(current, (await hub.call('snapshot', undefined)).hostedPi));
    return 0;
  },
};

function pauseCommand(paused: boolean): Command {
  return {
    summary: paused ? 'Pause routing' : 'Resume routing',
    usage: `Usage: patchbay ${paused ? 'pause' : 'resume'}`,
    async run(args, ctx) {
      positionals(parse(args, {}).positionals, []);
      await (await ctx.connect()).call('setPaused', { paused });
      ctx.io.stdout.write(paused ? 'Routing paused.\n' : 'Routing resumed.\n');
      return 0;
    },
  };
}

export const traffic: Command = {
  summary: 'Show the recent frames of one session, both ways, with timing',
  usage: `Usage: patchbay traffic <sessionId> [--limit N] [--grep TEXT] [--json]
Oldest first. →P agent to Patchbay, P→ Patchbay to agent, →E to the editor, E→ from it.
  --limit N    only the newest N frames
  --grep TEXT  only frames whose method or text contains TEXT`,
  async run(args, ctx) {
    const { values, positionals: given } = parse(args, {
      limit: { type: 'string' },
      grep: { type: 'string' },
      json: { type: 'boolean' },
    });
    const [sessionId] = positionals(given, ['sessionId']) as [string];
    let limit: number | undefined;
    if (values.limit !== undefined) {
      limit = Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit takes a whole number above 0, not "${values.limit}"`);
    }
    const all = await (await ctx.connect()).call('traffic', limit === undefined ? { sessionId } : { sessionId, limit });
    const entries = values.grep === undefined ? all : filterTraffic(all, { text: values.grep, dirs: new Set(DIRECTIONS.map((d) => d.dir)) });
    if (values.json) printJson(ctx.io, entries);
    else ctx.io.stdout.write(formatTraffic(entries));
    return 0;
  },
};

export const pause = pauseCommand(true);
export const resume = pauseCommand(false);

export const open: Command = {
  summary: 'Open Patchbay’s UI in the browser, or sign every browser out',
  usage: `Usage: patchbay open [--print | --revoke-all]
  --print       print a sign-in link to paste into a browser's address bar instead (it works
                once, within 2 minutes; never pass it to a command: others can read commands)
  --revoke-all  sign every browser out (open pages close; each needs a new link)
The browser ($BROWSER when set, else the system's opener) is given a page in Patchbay's home
that only you can read, so no secret is on its command line; the page signs it in once and is
deleted. One sign-in serves every tab of that browser. When no browser can be opened, a link
is printed.`,
  async run(args, ctx) {
    const { values, positionals: given } = parse(args, { print: { type: 'boolean' }, 'revoke-all': { type: 'boolean' } });
    positionals(given, []);
    if (values['revoke-all']) {
      if (values.print) throw new UsageError('--revoke-all opens nothing: it cannot be combined with --print');
      const [{ NotRunningError, revokeBrowserSessions }, { rotateSigningKey }] = await Promise.all([
        import('../web/control-client.ts'),
        import('../web/browser-state.ts'),
      ]);
      const report = await revokeBrowserSessions(ctx.options.home).catch(async (err: unknown) => {
        if (!(err instanceof NotRunningError)) throw err;
        // Nothing serves a browser now: a new key in browser.json voids every sign-in for the next start.
        return { closed: null, unsaved: await rotateSigningKey(ctx.options.home, (line) => ctx.io.stderr.write(`patchbay: ${line}\n`)) };
      });
      if (report.unsaved !== null) {
        const now = report.closed === null ? 'No Patchbay is running' : 'Every browser is signed out of the running Patchbay';
        ctx.io.stderr.write(`patchbay: ${now}, but ${report.unsaved}\n`);
        return 1;
      }
      const pages = report.closed === null ? '' : ` (${report.closed} open ${report.closed === 1 ? 'page' : 'pages'} closed)`;
      ctx.io.stdout.write(`Every browser is signed out${pages}; \`patchbay open\` signs one in again.\n`);
      return 0;
    }
    const client = await controlClient();
    if (values.print) {
      ctx.io.stdout.write(`${await client.requestOpenUrl(ctx.options.home)}\n`);
      return 0;
    }
    const page = await client.requestOpenPage(ctx.options.home);
    const failed = await openInBrowser(pathToFileURL(page).href, ctx.io.env);
    if (failed !== null) {
      await rm(page, { force: true });
      ctx.io.stderr.write(`patchbay: could not open a browser: ${failed}. Paste this link into your browser's address bar (it works once, within 2 minutes):\n`);
      ctx.io.stdout.write(`${await client.requestOpenUrl(ctx.options.home)}\n`);
    }
    return 0;
  },
};

export const dismiss: Command = {
  summary: 'Dismiss a notice (a crash and what it left) once you have read it',
  usage: `Usage: patchbay dismiss <notice-id> | all
Notices (what a crash left, a core that restarted after a crash, a door that had to move) stay
in status and the UI until dismissed; status lists their ids.`,
  async run(args, ctx) {
    const [which] = positionals(parse(args, {}).positionals, ['notice-id']);
    const hub = await ctx.connect();
    const ids = which === 'all' ? (await hub.call('snapshot', undefined)).notices.map((n) => n.id) : [which!];
    for (const id of ids) await hub.call('notices.dismiss', { id });
    ctx.io.stdout.write(ids.length === 0 ? 'no notices\n' : `dismissed ${ids.join(', ')}\n`);
    return 0;
  },
};
