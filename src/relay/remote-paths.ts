// A remote session's frames in the right paths (DESIGN §9b): what its agent sends names files
// over there, what an editor sends names them here. Requests to the editor are mapped remote →
// local, what goes back to the agent local → remote; a file no map covers is not the agent's
// to see (a selection in it is dropped, its diagnostics and tabs left out).
import { isObject } from '../api/json.ts';
import type { Dialect } from '../api/types.ts';
import type { RpcRequest, RpcResponse } from '../protocol/jsonrpc.ts';
import { mapFileUrl, toLocal, toRemote, type PathMapping } from '../remote/paths.ts';
import { firstTextJson, resultTexts, textResult } from '../protocol/mcp.ts';

/** Keys that hold a file's path or URL in the tools' arguments and answers. */
const PATH_KEYS = new Set(['filePath', 'path', 'old_file_path', 'new_file_path', 'rootPath']);
const URL_KEYS = new Set(['uri', 'fileUrl']);

/** How pi-ide.nvim and VS Code name the proposed side of a diff (dialect.ts). */
const PI_PROPOSED_SUFFIX = ' [pi-proposed]';
const CLAUDE_PROPOSED_SIDE = '_claude_fs_right:';

type Side = 'to-local' | 'to-remote';

function mapPath(maps: readonly PathMapping[], path: string, side: Side): string | null {
  const suffix = path.endsWith(PI_PROPOSED_SUFFIX) ? PI_PROPOSED_SUFFIX : '';
  const bare = suffix ? path.slice(0, -suffix.length) : path;
  const mapped = side === 'to-local' ? toLocal(maps, bare) : toRemote(maps, bare);
  return mapped === null ? null : mapped + suffix;
}

function mapUrl(maps: readonly PathMapping[], url: string, side: Side): string | null {
  if (url.startsWith(CLAUDE_PROPOSED_SIDE)) {
    const path = mapPath(maps, url.slice(CLAUDE_PROPOSED_SIDE.length), side);
    return path === null ? null : CLAUDE_PROPOSED_SIDE + path;
  }
  return mapFileUrl(url, (p) => (side === 'to-local' ? toLocal(maps, p) : toRemote(maps, p)), side);
}

/**
 * Every path and URL under the keys that hold them, mapped; one no map covers stays as it is
 * (`unmapped` is told). Values that are not JSON objects pass through.
 */
function mapFields(value: unknown, maps: readonly PathMapping[], side: Side, unmapped: () => void): unknown {
  if (Array.isArray(value)) return value.map((item) => mapFields(item, maps, side, unmapped));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' && (PATH_KEYS.has(key) || URL_KEYS.has(key))) {
      const mapped = URL_KEYS.has(key) && !item.startsWith('/') ? mapUrl(maps, item, side) : mapPath(maps, item, side);
      if (mapped === null) unmapped();
      out[key] = mapped ?? item;
    } else {
      out[key] = mapFields(item, maps, side, unmapped);
    }
  }
  return out;
}

/** An agent's request as the editor must read it: the paths in its tool arguments mapped here. */
export function requestToLocal(msg: RpcRequest, maps: readonly PathMapping[]): RpcRequest {
  if (!isObject(msg.params)) return msg;
  return { ...msg, params: mapFields(msg.params, maps, 'to-local', () => {}) };
}

/** An editor's request for a remote agent (getSuggestions names the file): its paths as the agent knows them, where a map covers them. */
export function requestToRemote(msg: RpcRequest, maps: readonly PathMapping[]): RpcRequest {
  if (!isObject(msg.params)) return msg;
  return { ...msg, params: mapFields(msg.params, maps, 'to-remote', () => {}) };
}

/** The text items of a tool answer that are JSON, with their paths mapped to the remote; the rest as they are. */
export function answerToRemote(response: RpcResponse, maps: readonly PathMapping[]): RpcResponse {
  const texts = resultTexts(response.result);
  if (texts === null) return response;
  const content = (response.result as { content: unknown[] }).content.map((item, i) => {
    const text = texts[i];
    if (text === undefined || !/^\s*[[{]/.test(text)) return item;
    try {
      return { ...(item as object), text: JSON.stringify(mapFields(JSON.parse(text), maps, 'to-remote', () => {})) };
    } catch {
      return item;
    }
  });
  return { ...response, result: { ...(response.result as object), content } };
}

/** An editor's notification for a remote agent; null when it is about a file no map covers (the agent never sees it). */
export function notificationToRemote<N extends { method: string; params?: unknown }>(msg: N, maps: readonly PathMapping[]): N | null {
  if (!isObject(msg.params)) return msg;
  let outside = false;
  const params = mapFields(msg.params, maps, 'to-remote', () => (outside = true));
  return outside ? null : { ...msg, params };
}

/**
 * Diagnostics already in the agent's dialect (a map for pi, a list for Claude), their files
 * named as the agent knows them; files no map covers are left out.
 */
export function diagnosticsToRemote(result: unknown, dialect: Dialect, maps: readonly PathMapping[]): unknown {
  const first = firstTextJson(result);
  if (first === null) return result;
  const parsed = first.value;
  const uri = (u: string): string | null => (u.startsWith('/') ? mapPath(maps, u, 'to-remote') : mapUrl(maps, u, 'to-remote'));
  let mapped: unknown;
  if (dialect === 'pi' && isObject(parsed)) {
    mapped = Object.fromEntries(Object.entries(parsed).flatMap(([u, d]) => {
      const to = uri(u);
      return to === null ? [] : [[to, d]];
    }));
  } else if (Array.isArray(parsed)) {
    mapped = parsed.flatMap((item: unknown) => {
      const to = isObject(item) && typeof item.uri === 'string' ? uri(item.uri) : null;
      return to === null ? [] : [{ ...(item as object), uri: to }];
    });
  } else {
    return result;
  }
  const rest = (resultTexts(result) ?? []).slice(1);
  return { ...(result as object), ...textResult(JSON.stringify(mapped), ...rest) };
}

/** Open editor tabs already in the agent's dialect, as the agent names their files; tabs no map covers are left out. */
export function tabsToRemote(result: unknown, maps: readonly PathMapping[]): unknown {
  const first = firstTextJson(result);
  if (first === null) return result;
  const parsed = first.value;
  const keep = (tabs: unknown[]): unknown[] =>
    tabs.flatMap((tab) => {
      let outside = false;
      const mapped = mapFields(tab, maps, 'to-remote', () => (outside = true));
      return outside ? [] : [mapped];
    });
  if (Array.isArray(parsed)) return textResult(JSON.stringify(keep(parsed)));
  if (isObject(parsed) && Array.isArray(parsed.tabs)) return textResult(JSON.stringify({ ...parsed, tabs: keep(parsed.tabs) }));
  return result;
}
