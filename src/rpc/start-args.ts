// Which of pi's command-line arguments load code into it, and which pick its session. An
// extension (`-e <path>`, `--extension <path>`; `--hook` in older pi) is a module pi imports and
// runs with the person's rights, and `--approve` (`-a`) trusts the folder's own `.pi/` without
// asking: its extensions run and its packages are installed (pi 0.87 otherwise loads them only
// for a folder the person trusted in pi's terminal). So `pi.start` (and `pi.resume`, with the
// arguments it keeps) passes these only when the person allowed extensions in settings.
import { HubError } from '../api/types.ts';

const LOADS_CODE = /^(-e|--extension|--hook)|^(-a|--approve)$/;

/** The arguments of `args` that would make pi load code (an extension, or the folder's own), in order. */
export function extensionArgs(args: readonly string[]): string[] {
  return args.filter((arg) => LOADS_CODE.test(arg));
}

/** Throws unless `args` loads no code into pi or the person allowed extensions (`command` names the call in the message). */
export function refuseExtensions(args: readonly string[], allowed: boolean, command = 'pi.start'): void {
  const found = extensionArgs(args);
  if (found.length === 0 || allowed) return;
  throw new HubError(
    `${command}: "args" would load code into pi (${found.join(', ')}): an extension, or with --approve the ` +
      "folder's own .pi extensions and packages; Patchbay starts pi with these only when the allowPiExtensions setting is on " +
      '(in a terminal, as you: patchbay settings set allowPiExtensions true)',
    'invalid',
  );
}

/** Arguments that choose which session pi opens (or its name or model), with how many values follow each. */
const PICKS_SESSION: Readonly<Record<string, number>> = {
  '--continue': 0,
  '-c': 0,
  '--resume': 0,
  '-r': 0,
  '--no-session': 0,
  '--session': 1,
  '--fork': 1,
  '--session-id': 1,
  '--name': 1,
  '-n': 1,
  '--model': 1,
};

/**
 * A session's start arguments for starting it again on its own file: everything but what
 * picked its session, named it or chose its model (`--session <file>` and the model it last
 * used are given instead).
 */
export function resumeArgs(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    const values = PICKS_SESSION[name];
    if (values === undefined) kept.push(arg);
    else if (!arg.includes('=')) i += values;
  }
  return kept;
}

/** The `--session-dir` a session's arguments name, if any (its sessions are kept there). */
export function sessionDirArg(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--session-dir=')) return arg.slice('--session-dir='.length);
    if (arg === '--session-dir' && i + 1 < args.length) return args[i + 1]!;
  }
  return null;
}
