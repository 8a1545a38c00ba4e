// Maps a URL path to a file of the built renderer, refusing anything outside its folder.
import { realpath, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

export function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

export type StaticLookup = { kind: 'file'; path: string } | { kind: 'not-found' } | { kind: 'forbidden' };

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function statOrNull(path: string) {
  try {
    return await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * `urlPath` is the raw pathname of the request. Encoded dots, backslashes, NUL and symlinks
 * pointing out of `root` are all refused; a folder means its `index.html`.
 */
export async function lookupStatic(root: string, urlPath: string): Promise<StaticLookup> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { kind: 'forbidden' }; // malformed escapes cannot name a real file
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return { kind: 'forbidden' };
  if (decoded.split('/').some((segment) => segment === '..')) return { kind: 'forbidden' };
  const base = resolve(root);
  let path = resolve(base, `.${decoded}`);
  if (!inside(base, path)) return { kind: 'forbidden' };
  let info = await statOrNull(path);
  if (info?.isDirectory()) {
    path = resolve(path, 'index.html');
    info = await statOrNull(path);
  }
  if (!info?.isFile()) return { kind: 'not-found' };
  if (!inside(await realpath(base), await realpath(path))) return { kind: 'forbidden' };
  return { kind: 'file', path };
}
