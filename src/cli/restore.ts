// `patchbay restore`: give editors their lockfiles back, through the daemon when it runs and
// straight on disk when it does not (after a crash, say).
import type { Dialect, RestoreReport } from '../api/types.ts';
import type { HubOptions } from '../options.ts';
import { parse, positionals, printJson, type Command } from './command.ts';
import { formatRestore } from './format.ts';

export async function restoreOnDisk(options: HubOptions): Promise<RestoreReport> {
  // Loaded here, not by every `patchbay` call: takeover brings the lockfile schemas.
  const [{ pidAlive }, { removeDeadDoors, restoreAdopted }] = await Promise.all([
    import('../discovery/liveness.ts'),
    import('../discovery/takeover.ts'),
  ]);
  const report: Required<RestoreReport> = { restored: [], removed: [], warnings: [] };
  const dirs: [string, Dialect][] = [
    [options.piLockDir, 'pi'],
    [options.claudeLockDir, 'claude'],
  ];
  for (const [dir, dialect] of dirs) {
    const moved = await restoreAdopted(dir, dialect, pidAlive);
    report.restored.push(...moved.restored);
    report.removed.push(...moved.removed, ...(await removeDeadDoors(dir, dialect, pidAlive)));
    report.warnings.push(...moved.warnings);
  }
  return report.warnings.length > 0 ? report : { restored: report.restored, removed: report.removed };
}

/** What a Patchbay that died left in the lock dirs: its door's lockfiles, editors' lockfiles still hidden. */
export interface Leftovers {
  doors: string[];
  hidden: string[];
}

/** Looks, changing nothing (restore changes it). */
export async function leftoversOnDisk(options: HubOptions): Promise<Leftovers> {
  const [{ pidAlive }, { isOwnDoor, listAdopted }, { currentUid, scanFolder }] = await Promise.all([
    import('../discovery/liveness.ts'),
    import('../discovery/takeover.ts'),
    import('../discovery/lock-dir.ts'),
  ]);
  const found: Leftovers = { doors: [], hidden: [] };
  const uid = currentUid();
  const opts = { maxBytes: options.maxLockfileBytes };
  for (const [dir, dialect] of [
    [options.piLockDir, 'pi'],
    [options.claudeLockDir, 'claude'],
  ] as const) {
    for (const entry of (await scanFolder(dir, dir, dialect, opts)).entries) {
      if (isOwnDoor(entry, uid) && !pidAlive(entry.lock.pid)) found.doors.push(entry.path);
    }
    found.hidden.push(...(await listAdopted(dir, dialect, opts, uid)).entries.map((e) => e.path));
  }
  return found;
}

/** What `status` says when no Patchbay runs but one left its traces (a crash, kill -9). */
export function leftoversText(found: Leftovers): string | null {
  if (found.doors.length === 0 && found.hidden.length === 0) return null;
  const lines = ['Patchbay is not running, but one that stopped unexpectedly left traces:'];
  for (const door of found.doors) lines.push(`  stale door: ${door} (agents that connect there reach nothing)`);
  for (const hidden of found.hidden) lines.push(`  hidden editor lockfile: ${hidden} (agents do not see this editor)`);
  lines.push('Run `patchbay restore` to put the editors back and remove the stale door, or start Patchbay again (it recovers them).');
  return `${lines.join('\n')}\n`;
}

export const restore: Command = {
  summary: 'Put the editors’ adopted lockfiles back where agents find them',
  usage: `Usage: patchbay restore [--json]
Through the running daemon if there is one; otherwise directly in the lock dirs.`,
  async run(args, ctx) {
    const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
    positionals(given, []);
    let report: RestoreReport;
    try {
      report = await (await ctx.connect()).call('restore', undefined);
    } catch (err) {
      // connect() has loaded the client module by now.
      const { NotRunningError } = await import('../web/control-client.ts');
      if (!(err instanceof NotRunningError)) throw err;
      report = await restoreOnDisk(ctx.options);
    }
    if (values.json) printJson(ctx.io, report);
    else ctx.io.stdout.write(formatRestore(report));
    return 0;
  },
};
