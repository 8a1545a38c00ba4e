// "Another machine" made of the ssh double (fake-ssh.mjs): no root, no namespace. The remote
// side is a folder of the test's own with its home and lock dirs; a wrapper named `ssh` first on
// PATH runs the double with that environment. The remote command runs as this user on this
// machine, so its /proc is this one's: the helper finds agents here as it would over there.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FAKE_SSH = fileURLToPath(new URL('./fake-ssh.mjs', import.meta.url));

export interface FakeSshRemote {
  /** PATH with the `ssh` wrapper first. */
  path: string;
  home: string;
  piLockDir: string;
  claudeLockDir: string;
}

/** Makes the remote's folders under `root`, and `root`/bin/ssh; `path` is PATH to run Patchbay with. */
export async function fakeSshRemote(root: string, path = process.env.PATH ?? '/usr/bin:/bin'): Promise<FakeSshRemote> {
  const home = join(root, 'remote-home');
  const bin = join(root, 'bin');
  await mkdir(home, { recursive: true, mode: 0o700 });
  await mkdir(bin, { recursive: true });
  const env = { HOME: home, PI_IDE_LOCK_DIR: join(home, '.pi', 'ide'), CLAUDE_CONFIG_DIR: join(home, '.claude') };
  const wrapper = join(bin, 'ssh');
  await writeFile(wrapper, `#!/bin/sh\nFAKE_SSH_REMOTE_ENV='${JSON.stringify(env)}' exec '${process.execPath}' '${FAKE_SSH}' "$@"\n`);
  await chmod(wrapper, 0o755);
  return { path: `${bin}:${path}`, home, piLockDir: env.PI_IDE_LOCK_DIR, claudeLockDir: join(env.CLAUDE_CONFIG_DIR, 'ide') };
}
