// Whether nobody but you (and root) can change what a path leads to: the folder and every folder
// above it, from / down, must be yours or root's and writable by nobody else — the rule
// OpenSSH's StrictModes applies to ~/.ssh. Whoever can write a folder can swap what is in it
// between a check and a write (`.pi` for a symlink to your ~/.pi/agent); a folder no one else can
// write, under folders no one else can write, cannot change under you: that is what makes a
// write by path safe without openat(2), which node lacks.
//
// A sticky folder above (/tmp, mode 1777) is let through when you or root own it: others may add
// entries to it but cannot rename or remove yours (the sticky bit), and the entry below it is
// checked to be yours or root's in turn. The folder written in is never let through so: others
// could put files in it for you to read, and names for you to write through.
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { otherWriters } from './writers.ts';

/** Why a folder on the way cannot be trusted, and what fixes it. */
export class UnsafeFolderError extends Error {
  constructor(
    /** The folder that others can write, or that is not yours. */
    readonly folder: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeFolderError';
  }
}

const STICKY = 0o1000;

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** Why `stats` (of `folder`) lets someone else change what is below it, or null. */
export function folderProblem(folder: string, stats: Stats, me: number, { last }: { last: boolean }): string | null {
  if (stats.isSymbolicLink()) return `${folder} is a symlink (it changed while Patchbay looked at it); try again`;
  if (!stats.isDirectory()) return `${folder} is not a folder`;
  if (stats.uid !== me && stats.uid !== 0) {
    return `${folder} belongs to uid ${stats.uid}, neither you (uid ${me}) nor root, who could swap what is in it for a link into your files`;
  }
  const who = otherWriters(stats.mode);
  if (who === null || (!last && (stats.mode & STICKY) !== 0)) return null;
  return `${folder} can be written by ${who} (mode ${octal(stats.mode)}), who could swap what is in it for a link into your files. Make it yours alone: chmod go-w ${folder}`;
}

/**
 * The stats of `folder` (absolute, its symlinks already resolved) once it and every folder above
 * it have been found to be changeable by you and root alone; throws UnsafeFolderError saying which
 * one is not and why, and node's errors (a missing folder: ENOENT) otherwise. Where there are no
 * owners to check (Windows), only the folder's own stats.
 */
export async function checkStrictFolders(folder: string): Promise<Stats> {
  if (!isAbsolute(folder)) throw new Error(`${folder}: an absolute path is needed`);
  const me = process.getuid?.();
  if (me === undefined) return lstat(folder);
  const parts = folder.split('/').filter((part) => part !== '');
  let path = '/';
  // One at a time from / down: each check holds only once the one above it has held.
  for (let i = 0; ; i++) {
    const stats = await lstat(path);
    const problem = folderProblem(path, stats, me, { last: i === parts.length });
    if (problem !== null) throw new UnsafeFolderError(path, problem);
    if (i === parts.length) return stats;
    path = join(path, parts[i]!);
  }
}
