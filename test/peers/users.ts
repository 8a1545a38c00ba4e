// Throwaway users for tests that need a second (or third) uid on the machine: another user who
// races Patchbay for a path. Only root can make and act as them; elsewhere such tests skip.
import { spawnSync } from 'node:child_process';

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
}

function lookUp(name: string): TestUser | null {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Why these tests cannot run here, or null when they can (root on Linux). */
export function usersUnavailable(): string | null {
  if (process.platform !== 'linux') return 'needs Linux users';
  if (process.getuid?.() !== 0) return 'needs root, to act as two other users';
  return null;
}

/** The user `name`, made (a system user: no home, no login) when missing. Throws saying why it could not be. */
export function testUser(name: string): TestUser {
  const found = lookUp(name);
  if (found) return found;
  const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], { encoding: 'utf8' });
  const user = lookUp(name);
  if (!user) throw new Error(`could not make the test user ${name}: ${made.error?.message ?? made.stderr.trim()}`);
  return user;
}
