// "Another machine" for the remote tests, made of real OpenSSH on this one and isolated the way a
// second host is: a network namespace of the test's own (its loopback is not this machine's, so
// the local door cannot be reached from there except through the tunnel), sshd in inetd mode
// inside it started by the ssh client itself (ProxyCommand `ip netns exec <ns> sshd -i`), a
// separate user for the remote side (password field `*`: sshd without PAM refuses a locked `!`
// account), the remote's lock dirs set per test with sshd's SetEnv, and the test's own ssh config
// behind a wrapper first on PATH (`exec /usr/bin/ssh -F <config> "$@"`): OpenSSH reads ~/.ssh
// from the passwd entry, not $HOME, so that keeps the person's own config out of it.
// Needs root, `ip netns`, sshd and ssh-keygen; `sshRemoteUnavailable()` says why not, for a skip.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import { spawnPeer, type PeerKind, type PeerProcess } from './spawn.ts';
import { tempDir, type TempDir } from './wait.ts';

const run = promisify(execFile);

/** The remote side's user, shared by every test (created once, kept). */
export const REMOTE_USER = 'pbremote';
const REMOTE_HOME = '/var/lib/patchbay-test-remote';
const SSHD = '/usr/sbin/sshd';

/** Why these tests cannot run here, or null when they can. */
export function sshRemoteUnavailable(): string | null {
  if (process.platform !== 'linux') return 'needs Linux network namespaces';
  if (process.getuid?.() !== 0) return 'needs root (ip netns, a second user, bind mounts)';
  for (const tool of [SSHD, '/usr/bin/ssh', '/usr/bin/ssh-keygen', '/usr/sbin/ip', '/usr/bin/setpriv', '/usr/sbin/useradd']) {
    if (!existsSync(tool)) return `needs ${tool} (Debian: openssh-server, openssh-client, iproute2, util-linux, passwd)`;
  }
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return 'ip netns does not work here';
  }
  return null;
}

export interface SshRemote {
  /** The ssh destination (a Host of the test's ssh config). */
  readonly destination: string;
  /** A destination whose host key is not known: ssh refuses it without asking. */
  readonly unknownHost: string;
  readonly ns: string;
  readonly dir: TempDir;
  /** Where the remote's pi and Claude lock dirs are (set with sshd's SetEnv). */
  readonly piLockDir: string;
  readonly claudeConfigDir: string;
  readonly claudeLockDir: string;
  /** PATH with the ssh wrapper first: what Patchbay's ssh runs with. */
  readonly path: string;
  readonly uid: number;
  readonly gid: number;
  /** Makes `localDir` visible over there at `remoteDir` too (a bind mount: the same files under two paths). */
  bindMount(localDir: string, remoteDir: string): Promise<void>;
  /** Kills the sshd processes serving the tunnels (the connection drops as a server crash drops it). */
  killSshd(): Promise<number>;
  /** Whether a TCP port on the remote's loopback accepts. */
  remoteAccepts(port: number): Promise<boolean>;
  /** Pids of processes over there (in the namespace). */
  remotePids(): Promise<number[]>;
  /** A double as an agent over there: the remote user, in the namespace. */
  spawnRemotePeer(kind: PeerKind, args: string[], opts?: { cwd?: string }): Promise<PeerProcess>;
}

async function ensureRemoteUser(): Promise<{ uid: number; gid: number }> {
  const lookup = (): string | null => {
    try {
      return execFileSync('getent', ['passwd', REMOTE_USER], { encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  };
  if (lookup() === null) {
    // Another test file may create it at the same time: its "exists" is fine.
    await run('useradd', ['--system', '--home-dir', REMOTE_HOME, '--no-create-home', '--shell', '/bin/sh', '--password', '*', REMOTE_USER]).catch(() => {});
  }
  const entry = lookup();
  if (entry === null) throw new Error(`could not create the user ${REMOTE_USER}`);
  const [, , uid, gid] = entry.split(':');
  await mkdir(REMOTE_HOME, { recursive: true, mode: 0o755 });
  await chown(REMOTE_HOME, Number(uid), Number(gid));
  return { uid: Number(uid), gid: Number(gid) };
}

export async function startSshRemote(t: TestContext): Promise<SshRemote> {
  const { uid, gid } = await ensureRemoteUser();
  const dir = await tempDir('ssh-remote');
  // The remote user works inside: its lock dirs and projects live under here.
  await chmod(dir.path, 0o755);
  const ns = `pb-${randomBytes(4).toString('hex')}`;
  const mounts: string[] = [];
  t.after(async () => {
    for (const path of mounts.reverse()) await run('umount', ['-l', path]).catch(() => {});
    // Whatever still runs over there (a helper, an agent) goes with the namespace.
    const pids = await run('ip', ['netns', 'pids', ns]).then((r) => r.stdout.split(/\s+/).filter(Boolean).map(Number), () => []);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await run('ip', ['netns', 'del', ns]).catch(() => {});
    await dir.cleanup();
  });
  await run('ip', ['netns', 'add', ns]);
  await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });

  const path = (name: string): string => join(dir.path, name);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path('host_key')]);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path('client_key')]);
  await writeFile(path('authorized_keys'), await readFile(path('client_key.pub')));
  await writeFile(path('known_hosts'), `devbox ${(await readFile(path('host_key.pub'), 'utf8')).trim()}\n`);

  const remoteRoot = path('remote');
  const piLockDir = join(remoteRoot, 'pi-ide');
  const claudeConfigDir = join(remoteRoot, 'claude');
  await mkdir(remoteRoot, { mode: 0o755 });
  await chown(remoteRoot, uid, gid);
  await writeFile(
    path('sshd_config'),
    [
      `HostKey ${path('host_key')}`,
      `AuthorizedKeysFile ${path('authorized_keys')}`,
      'PidFile none',
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AllowUsers ${REMOTE_USER}`,
      'AllowTcpForwarding yes',
      'PermitUserRC no',
      `SetEnv PI_IDE_LOCK_DIR=${piLockDir} CLAUDE_CONFIG_DIR=${claudeConfigDir}`,
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const proxy = `ProxyCommand /usr/sbin/ip netns exec ${ns} ${SSHD} -i -f ${path('sshd_config')}`;
  // In ssh_config the first value found wins: unknownbox's key alias (not in known_hosts) comes first.
  await writeFile(
    path('ssh_config'),
    [
      'Host unknownbox',
      '  HostKeyAlias unknownbox',
      'Host devbox unknownbox',
      `  User ${REMOTE_USER}`,
      `  ${proxy}`,
      `  IdentityFile ${path('client_key')}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path('known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  HostKeyAlias devbox',
      '',
    ].join('\n'),
  );
  const bin = path('bin');
  await mkdir(bin);
  await writeFile(join(bin, 'ssh'), `#!/bin/sh\nexec /usr/bin/ssh -F ${path('ssh_config')} "$@"\n`, { mode: 0o755 });

  const inNs = (command: string, args: string[]) => run('ip', ['netns', 'exec', ns, command, ...args]);
  const remotePids = async (): Promise<number[]> => {
    const { stdout } = await run('ip', ['netns', 'pids', ns]);
    return stdout.split(/\s+/).filter(Boolean).map(Number);
  };
  return {
    destination: 'devbox',
    unknownHost: 'unknownbox',
    ns,
    dir,
    piLockDir,
    claudeConfigDir,
    claudeLockDir: join(claudeConfigDir, 'ide'),
    path: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    uid,
    gid,
    async bindMount(localDir, remoteDir) {
      await mkdir(remoteDir, { recursive: true });
      await run('mount', ['--bind', localDir, remoteDir]);
      mounts.push(remoteDir);
    },
    async killSshd() {
      const pids = await remotePids();
      let killed = 0;
      for (const pid of pids) {
        const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
        if (comm.trim() !== 'sshd') continue;
        try {
          process.kill(pid, 'SIGKILL');
          killed++;
        } catch {
          // gone already
        }
      }
      return killed;
    },
    async remoteAccepts(port) {
      const probe = `require('net').connect(${port},'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))`;
      return inNs(process.execPath, ['-e', probe]).then(
        () => true,
        () => false,
      );
    },
    remotePids,
    spawnRemotePeer(kind, args, opts = {}) {
      return spawnPeer(kind, args, {
        prefix: ['ip', 'netns', 'exec', ns, 'setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: REMOTE_HOME, PI_IDE_LOCK_DIR: piLockDir, CLAUDE_CONFIG_DIR: claudeConfigDir },
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
        readyTimeoutMs: 30_000,
      });
    },
  };
}
