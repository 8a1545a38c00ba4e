// Remote ↔ local paths (DESIGN §9b): a remote's maps say which folder over there is which
// folder here (the same bytes under two paths, as with a bind mount or sshfs). Pure: the relay
// maps an agent's paths to the editor's and the editor's back to the agent's with these.
// Remote paths are POSIX (OpenSSH servers); local ones are this machine's.
import { isAbsolute, posix, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { PathMapping } from '../api/types.ts';

export type { PathMapping };

/** Trailing separators off (a root stays itself). */
function trimmed(path: string, separator: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === separator) end--;
  return path.slice(0, end);
}

/** What follows `folder` in `path` (`''` for the folder itself, `/x/y` inside it), or null when outside. */
function inside(folder: string, path: string, separator: string): string | null {
  const base = trimmed(folder, separator);
  if (path === base) return '';
  if (base === separator) return path.startsWith(separator) ? path : null;
  return path.startsWith(base) && path[base.length] === separator ? path.slice(base.length) : null;
}

/** The deepest mapping whose `from` side contains `path`, and the path on the `to` side; null when none does. */
function mapAcross(maps: readonly PathMapping[], path: string, from: 'remote' | 'local'): string | null {
  const fromSep = from === 'remote' ? '/' : sep;
  const toSep = from === 'remote' ? sep : '/';
  let best: { depth: number; to: string; rest: string } | null = null;
  for (const map of maps) {
    const rest = inside(map[from], path, fromSep);
    if (rest === null) continue;
    const depth = trimmed(map[from], fromSep).length;
    if (best === null || depth > best.depth) best = { depth, to: map[from === 'remote' ? 'local' : 'remote'], rest };
  }
  if (best === null) return null;
  const root = trimmed(best.to, toSep);
  const rest = fromSep === toSep ? best.rest : best.rest.split(fromSep).join(toSep);
  return root === toSep ? rest || toSep : root + rest;
}

/** Where a remote path is on this machine, or null when no map covers it. */
export function toLocal(maps: readonly PathMapping[], remotePath: string): string | null {
  return remotePath.startsWith('/') ? mapAcross(maps, remotePath, 'remote') : null;
}

/** Where a local path is on the remote, or null when no map covers it. */
export function toRemote(maps: readonly PathMapping[], localPath: string): string | null {
  return isAbsolute(localPath) ? mapAcross(maps, localPath, 'local') : null;
}

/** A `file://` URL's path on one side as the other side's URL; null when it is no file URL or no map covers it. */
export function mapFileUrl(url: string, map: (path: string) => string | null, side: 'to-local' | 'to-remote'): string | null {
  if (!url.startsWith('file://')) return null;
  let path: string;
  try {
    // A remote URL is POSIX whatever this machine is: read it as such.
    path = side === 'to-local' ? decodeURIComponent(new URL(url).pathname) : fileURLToPath(url);
  } catch {
    return null;
  }
  const mapped = map(path);
  if (mapped === null) return null;
  return side === 'to-local' ? pathToFileURL(mapped).href : `file://${mapped.split('/').map(encodeURIComponent).join('/')}`;
}

/** Why a `--map` value cannot be used, or null; `remote=local`, both absolute, neither with `..`. */
export function mappingProblem(map: PathMapping): string | null {
  if (!map.remote.startsWith('/')) return `the remote dir "${map.remote}" must be an absolute path (/home/you/project)`;
  if (!isAbsolute(map.local)) return `the local dir "${map.local}" must be an absolute path`;
  if (map.remote.split('/').includes('..')) return `the remote dir "${map.remote}" must not contain ".."`;
  if (map.local.split(/[\\/]/).includes('..')) return `the local dir "${map.local}" must not contain ".."`;
  if (/[\0\r\n]/.test(map.remote + map.local)) return 'a mapped dir must be one line of text';
  return null;
}

/** `/home/me/p=/Users/me/p` → a mapping (normalised, trailing separators off); throws saying what is wrong. */
export function parseMapping(text: string): PathMapping {
  const at = text.indexOf('=');
  if (at < 0) throw new Error(`--map takes <remote-dir>=<local-dir>, not "${text}"`);
  const map = { remote: text.slice(0, at), local: text.slice(at + 1) };
  const problem = mappingProblem(map);
  if (problem !== null) throw new Error(`--map ${text}: ${problem}`);
  return { remote: trimmed(posix.normalize(map.remote), '/'), local: trimmed(map.local, sep) };
}
