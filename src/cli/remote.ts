// `patchbay remote …`: remotes whose agents reach the door over SSH. What makes Patchbay run
// ssh is written by the person (this process, as them) into config.json, never sent over the
// API; the running daemon is then asked to take it up, and answers once it has connected.
import { stat } from 'node:fs/promises';
import type { RemoteConfig, RemoteView } from '../api/types.ts';
import { parseMapping } from '../remote/paths.ts';
import { destinationProblem } from '../remote/ssh.ts';
import { REMOTE_NAME } from '../settings/defaults.ts';
import { UsageError, parse, positionals, printJson, type Command, type CommandContext } from './command.ts';
import { formatRemotes } from './format.ts';

const USAGE = `Usage:
  patchbay remote add <name> <ssh-destination> --map <remote-dir>=<local-dir> [--map …]
  patchbay remote list [--json]
  patchbay remote remove <name>
A remote is a machine (a dev box, a container running sshd, a VM) where agents run: Patchbay
keeps an ssh connection to it (the system ssh, so your ~/.ssh/config, keys and agent apply; it
never asks for a password), forwards a loopback port there to its door and writes the door's
lockfile into the remote user's pi and Claude lock dirs. --map says which folder there is which
folder here (the same files: a bind mount, sshfs, a synced copy): agents' edits open in your
editor at the local path, and its cursor and diagnostics reach them at theirs.`;

/** Saves `change(remotes)` to config.json as the person, then has a running Patchbay take it up. */
async function saveRemotes(ctx: CommandContext, change: (remotes: RemoteConfig[]) => RemoteConfig[], wait?: string): Promise<RemoteView[] | null> {
  const [{ checkHome }, { PatchbayStore }, { NotRunningError }] = await Promise.all([
    import('../fs/home-check.ts'),
    import('../settings/store.ts'),
    import('../web/control-client.ts'),
  ]);
  await checkHome(ctx.options.home);
  const store = PatchbayStore.open(ctx.options.home);
  store.updateSettings({ remotes: change(store.settings().remotes.map((r) => ({ ...r, maps: [...r.maps] }))) }, { local: true });
  try {
    const hub = await ctx.connect();
    return await hub.call('remotes.reload', wait === undefined ? {} : { wait });
  } catch (err) {
    if (err instanceof NotRunningError) return null;
    throw err;
  }
}

async function storedRemotes(ctx: CommandContext): Promise<RemoteConfig[]> {
  const { PatchbayStore } = await import('../settings/store.ts');
  return PatchbayStore.open(ctx.options.home).settings().remotes;
}

async function add(args: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals: given } = parse(args, { map: { type: 'string', multiple: true } });
  const [name, destination] = positionals(given, ['name', 'ssh-destination']) as [string, string];
  if (!REMOTE_NAME.test(name)) throw new UsageError(`a remote's name is letters, digits, ".", "_" and "-" (at most 64), not "${name}"`);
  const problem = destinationProblem(destination);
  if (problem !== null) throw new UsageError(problem);
  if (!values.map || values.map.length === 0) throw new UsageError('at least one --map <remote-dir>=<local-dir> is needed: which folder over there is which folder here');
  const maps = values.map.map((text) => {
    try {
      return parseMapping(text);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  });
  for (const map of maps) {
    const isDir = await stat(map.local).then((s) => s.isDirectory(), () => false);
    if (!isDir) ctx.io.stderr.write(`patchbay: warning: ${map.local} is not a folder here: edits of files under ${map.remote} will have nothing to open\n`);
  }
  const existing = (await storedRemotes(ctx)).find((r) => r.name === name);
  if (existing) throw new UsageError(`a remote named "${name}" exists already (${existing.destination}): patchbay remote remove ${name} first`);
  const views = await saveRemotes(ctx, (remotes) => [...remotes, { name, destination, maps }], name);
  if (views === null) {
    ctx.io.stdout.write(`Remote ${name} saved; Patchbay connects to ${destination} when it starts.\n`);
    return 0;
  }
  const view = views.find((v) => v.name === name);
  ctx.io.stdout.write(formatRemotes(view ? [view] : []));
  if (view?.state === 'failed') {
    ctx.io.stderr.write(`patchbay: ${name} is saved, and Patchbay tries again by itself (patchbay remote list shows how it is doing).\n`);
    return 1;
  }
  return 0;
}

async function remove(args: string[], ctx: CommandContext): Promise<number> {
  const [name] = positionals(parse(args, {}).positionals, ['name']) as [string];
  const known = await storedRemotes(ctx);
  if (!known.some((r) => r.name === name)) {
    const names = known.map((r) => r.name);
    throw new UsageError(`no remote named "${name}" (${names.length > 0 ? `remotes: ${names.join(', ')}` : 'none is set up'})`);
  }
  const views = await saveRemotes(ctx, (remotes) => remotes.filter((r) => r.name !== name));
  ctx.io.stdout.write(
    views === null
      ? `Remote ${name} removed (Patchbay is not running: nothing of it is left over there).\n`
      : `Remote ${name} removed: its tunnel is closed and its lockfiles over there are gone.\n`,
  );
  return 0;
}

async function list(args: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
  positionals(given, []);
  const { NotRunningError } = await import('../web/control-client.ts');
  let views: RemoteView[];
  try {
    views = (await (await ctx.connect()).call('snapshot', undefined)).remotes;
  } catch (err) {
    if (!(err instanceof NotRunningError)) throw err;
    // Nothing is connected while no Patchbay runs: the remotes as saved, each saying so.
    views = (await storedRemotes(ctx)).map((r) => ({
      ...r,
      state: 'failed',
      reason: 'Patchbay is not running',
      remotePort: null,
      lockfiles: [],
      problems: [],
      since: ctx.now(),
      retryAt: null,
    }));
  }
  if (values.json) printJson(ctx.io, views);
  else ctx.io.stdout.write(views.length === 0 ? 'No remotes (patchbay remote add <name> <ssh-destination> --map <remote-dir>=<local-dir>).\n' : formatRemotes(views));
  return 0;
}

export const remote: Omit<Command, 'summary'> = {
  usage: USAGE,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'add':
        return add(rest, ctx);
      case 'remove':
        return remove(rest, ctx);
      case 'list':
        return list(rest, ctx);
      default:
        throw new UsageError(sub === undefined ? 'which: add, list or remove?' : `unknown remote command "${sub}"`);
    }
  },
};
