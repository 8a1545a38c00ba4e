// Whether an editor's workspace folders contain a path: the one rule the broker binds by and
// the windows hint with, so a choice marked "folder matches" is one the broker would make.
// Browser-safe (no node:path): the renderer and the tray menu use it too.

/** Windows paths (`C:\…`, `\\server\share`) take either separator, so both become `/`; POSIX paths keep a `\` as a name character. */
function normalizer(path: string): (p: string) => string {
  return /^(?:[A-Za-z]:[\\/]|\\\\)/.test(path) ? (p) => p.replaceAll('\\', '/') : (p) => p;
}

/** `folder` without trailing separators, except a root (`/`, `C:/`), which is all separator. */
function trimFolder(folder: string): string {
  let end = folder.length;
  while (end > 1 && folder[end - 1] === '/' && !/^[A-Za-z]:$/.test(folder.slice(0, end - 1))) end--;
  return folder.slice(0, end);
}

/**
 * Length of the deepest folder that contains `path`, or -1. Prefix match on whole path
 * segments (`/a/b` contains `/a/b/c`, not `/a/bc`), no realpath, as pi-ide matches.
 */
export function containingDepth(folders: readonly string[], path: string): number {
  const normal = normalizer(path);
  const target = normal(path);
  let best = -1;
  for (const raw of folders) {
    const folder = trimFolder(normal(raw));
    const inside = target === folder || (target.startsWith(folder) && (folder.endsWith('/') || target[folder.length] === '/'));
    if (inside && folder.length > best) best = folder.length;
  }
  return best;
}
