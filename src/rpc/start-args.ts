// Which of pi's command-line arguments load code into it. An extension (`-e <path>`,
// `--extension <path>`; `--hook` in older pi) is a module pi imports and runs with the
// person's rights, so `pi.start` passes one only when the person allowed it in settings.
import { HubError } from '../api/types.ts';

const LOADS_CODE = /^(-e|--extension|--hook)/;

/** The arguments of `args` that would make pi load an extension, in order. */
export function extensionArgs(args: readonly string[]): string[] {
  return args.filter((arg) => LOADS_CODE.test(arg));
}

/** Throws unless `args` loads no extension or the person allowed extensions. */
export function refuseExtensions(args: readonly string[], allowed: boolean): void {
  const found = extensionArgs(args);
  if (found.length === 0 || allowed) return;
  throw new HubError(
    `pi.start: "args" would load an extension (${found.join(', ')}), which runs as code in pi; ` +
      'Patchbay starts pi with extensions only when the allowPiExtensions setting is on ' +
      '(in a terminal, as you: patchbay settings set allowPiExtensions true)',
    'invalid',
  );
}
