// The two dialects of the same protocol, and the translations between them (DESIGN §1, §6).
import { basename, isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Dialect } from '../api/types.ts';
import type { ToolSpec } from './mcp.ts';
import { firstTextJson, resultTexts, textResult } from './mcp.ts';
import { isObject } from '../api/json.ts';

export type { Dialect };

export const AUTH_HEADER: Record<Dialect, string> = {
  pi: 'x-pi-ide-authorization',
  claude: 'x-claude-code-ide-authorization',
};

/**
 * How Patchbay opens a connection to an editor (its links and its probes alike): the token in
 * the dialect's header, none for an editor that has none (claude-code-ide.el), and subprotocol
 * `mcp` offered to a Claude-dialect editor, alone (JetBrains' plugin takes only exactly `mcp`;
 * VS Code's extension, claudecode.nvim and Emacs echo it).
 */
export function editorHandshake({ token, dialect }: { token: string | null; dialect: Dialect }): { protocols: string[]; headers: Record<string, string> } {
  return {
    protocols: dialect === 'claude' ? ['mcp'] : [],
    headers: token === null ? {} : { [AUTH_HEADER[dialect]]: token },
  };
}

/** What VS Code's extension looks for in a tab's label to close it before every openDiff. */
const CLAUDE_CODE_LABEL = '[Claude Code]';

/**
 * The tab name a diff gets in an editor. pi-ide.nvim keys its diffs by any name, so the agent's
 * stays. Claude-dialect editors treat only names holding both markers as diffs (claudecode.nvim
 * answers close_tab for any other with "Failed to unload buffer"), so a pi name is given
 * Claude Code's shape there: `✻ [pi] <file> (<id>) ⧉`. A Claude Code name loses its
 * `[Claude Code]` there: VS Code's extension closes every tab whose label holds it before it
 * opens a diff, which would decide one session's pending diff when another's arrives (rejected,
 * or accepted as the person had edited it: it saves an edited one as it closes it). The agent always sees its own name.
 */
export function editorTabName(agentTab: string, file: string, id: string, editor: Dialect): string {
  if (editor === 'pi') return agentTab;
  if (agentTab.includes('✻') && agentTab.includes('⧉')) return agentTab.replaceAll(CLAUDE_CODE_LABEL, '[Claude Code · Patchbay]');
  const name = file.split(/[\\/]/).pop() || file;
  return `✻ [pi] ${name} (${id}) ⧉`;
}

/**
 * Whether an editor closes a diff's tab once the person decided it there. pi-ide.nvim does;
 * Claude-dialect editors keep it open until a close_tab arrives (Claude Code sends one after
 * every decision), so Patchbay sends it.
 */
export function closesDecidedDiffs(editor: Dialect): boolean {
  return editor === 'pi';
}

/** Tools with a different name per dialect. */
const OPEN_EDITORS: Record<Dialect, string> = { pi: 'getOpenEditorTabs', claude: 'getOpenEditors' };

/** `getOpenEditorTabs` (pi) or `getOpenEditors` (Claude). */
export function isOpenEditorsTool(name: string): boolean {
  return name === OPEN_EDITORS.pi || name === OPEN_EDITORS.claude;
}

/** The name the editor knows a tool by, for a call made in the agent's dialect. */
export function toolNameFor(name: string, from: Dialect, to: Dialect): string {
  return name === OPEN_EDITORS[from] ? OPEN_EDITORS[to] : name;
}

export interface Diagnostic {
  [key: string]: unknown;
}
/** uri → diagnostics, in the order files were first seen. A Map, so a uri like `__proto__` is just a key. */
type DiagnosticsByUri = Map<string, Diagnostic[]>;

/**
 * Reads either shape into a list of (uri, diagnostics); null for any other shape. pi-ide.nvim
 * encodes an empty map as `[]` (Lua's empty table). A map's values must all be lists: other
 * objects (claudecode.nvim sends one `{filePath,line,…}` per item) are not diagnostics maps.
 */
function diagnosticsEntries(value: unknown): [string, Diagnostic[]][] | null {
  if (Array.isArray(value)) {
    const entries: [string, Diagnostic[]][] = [];
    for (const item of value) {
      if (typeof item !== 'object' || item === null) return null;
      const { uri, diagnostics } = item as { uri?: unknown; diagnostics?: unknown };
      if (typeof uri !== 'string') return null;
      if (diagnostics !== undefined && !Array.isArray(diagnostics)) return null;
      entries.push([uri, (diagnostics ?? []) as Diagnostic[]]);
    }
    return entries;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.every(([, diagnostics]) => Array.isArray(diagnostics)) ? (entries as [string, Diagnostic[]][]) : null;
  }
  return null;
}

/** vim.diagnostic.severity, by number, in the names pi-ide and VS Code use. */
const VIM_SEVERITY: Readonly<Record<number, string>> = { 1: 'Error', 2: 'Warning', 3: 'Information', 4: 'Hint' };

/**
 * One diagnostic as claudecode.nvim sent it before 80752b2 (June 2026), one per text item:
 * `{filePath, line, character, severity, message, source}`, 1-based, severity by vim's number.
 * As an entry of the map pi-ide reads; null for anything else.
 */
function legacyDiagnostic(value: unknown): [string, Diagnostic[]][] | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { filePath, line, character, severity, message, source } = value as Record<string, unknown>;
  if (typeof filePath !== 'string' || !isAbsolute(filePath) || typeof message !== 'string') return null;
  const at = { line: Math.max(0, Number(line) - 1 || 0), character: Math.max(0, Number(character) - 1 || 0) };
  const named = typeof severity === 'number' ? (VIM_SEVERITY[severity] ?? String(severity)) : severity;
  return [[pathToFileURL(filePath).href, [{ message, severity: named, source, range: { start: at, end: at } }]]];
}

function encodeDiagnostics(byUri: DiagnosticsByUri, to: Dialect): string {
  if (to === 'pi') return JSON.stringify(Object.fromEntries(byUri));
  return JSON.stringify([...byUri].map(([uri, diagnostics]) => ({ uri, diagnostics })));
}

export function emptyDiagnostics(to: Dialect): unknown {
  return textResult(encodeDiagnostics(new Map(), to));
}

/**
 * Rewrites a `getDiagnostics` result into the agent's dialect; unknown shapes pass through.
 * Diagnostics themselves pass as they are: pi-ide reads only the first text item, as a map,
 * and of each diagnostic `severity` by name ("Error" and "Warning", the only ones it shows),
 * `message` and `range.start`, which VS Code, claudecode.nvim and pi-ide.nvim all send alike
 * (they differ only in names pi-ide skips: "Information" / "Info").
 */
export function translateDiagnostics(result: unknown, to: Dialect): unknown {
  const texts = resultTexts(result);
  if (!texts || (result as { isError?: unknown }).isError === true) return result;
  // An older claudecode.nvim says "none" with no item at all, which pi-ide cannot read; Claude
  // Code, which it was written for, reads its shapes as they are.
  if (texts.length === 0) return to === 'pi' ? emptyDiagnostics(to) : result;
  const merged: DiagnosticsByUri = new Map();
  for (const text of texts) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return result;
    }
    const entries = diagnosticsEntries(parsed) ?? (to === 'pi' ? legacyDiagnostic(parsed) : null);
    if (!entries) return result;
    // The same file may appear in several items; keep all of its diagnostics.
    for (const [uri, diagnostics] of entries) merged.set(uri, [...(merged.get(uri) ?? []), ...diagnostics]);
  }
  return textResult(encodeDiagnostics(merged, to));
}

interface EditorTab {
  uri: string;
  isActive?: boolean;
  isDirty?: boolean;
  languageId?: string;
  label?: string;
  [key: string]: unknown;
}

/** pi: a JSON array of tabs; Claude: `{tabs:[…]}` with a `label` per tab. */
export function translateOpenEditors(result: unknown, to: Dialect): unknown {
  const first = firstTextJson(result);
  if (first === null) return result;
  const parsed = first.value;
  const tabs = emptyTableAsList(Array.isArray(parsed) ? parsed : (parsed as { tabs?: unknown } | null)?.tabs);
  if (!Array.isArray(tabs)) return result;
  const list = tabs.filter((t): t is EditorTab => typeof t === 'object' && t !== null && typeof t.uri === 'string');
  if (to === 'pi') return textResult(JSON.stringify(list));
  const withLabels = list.map((t) => ({ ...t, label: typeof t.label === 'string' ? t.label : labelOf(t.uri) }));
  return textResult(JSON.stringify({ tabs: withLabels }));
}

/** No editor to ask: no open tabs, in the agent's shape. */
export function emptyOpenEditors(to: Dialect): unknown {
  return translateOpenEditors(textResult('[]'), to);
}

/** A Lua editor may encode an empty list as `{}`. */
function emptyTableAsList(value: unknown): unknown {
  const isEmptyObject = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
  return isEmptyObject ? [] : value;
}

/** The file name of a tab's URI, as editors label tabs. */
function labelOf(uri: string): string {
  const name = uri.replace(/\/+$/, '').split('/').pop() || uri;
  try {
    return decodeURIComponent(name);
  } catch {
    return name; // not percent-encoded after all (a bare path with a literal '%')
  }
}

/**
 * A tool list fit for the agent: names in its dialect, and schemas Claude Code accepts
 * (pi-ide.nvim's empty `properties` is a Lua empty table, encoded as `[]`).
 */
export function cleanToolList(tools: ToolSpec[], from: Dialect, to: Dialect): ToolSpec[] {
  return tools.map((tool) => {
    // MCP clients require `{type:"object", properties?: object}`; one bad schema drops the whole list.
    const schema = isObject(tool.inputSchema) ? { ...tool.inputSchema } : {};
    if (!isObject(schema.properties)) schema.properties = {};
    if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
    schema.type = 'object';
    return { ...tool, name: toolNameFor(tool.name, from, to), inputSchema: schema };
  });
}


/** VS Code's extension names a diff's sides with these schemes; the proposed side is "right". */
const PROPOSED_SIDE = '_claude_fs_right:';
/** How pi-ide.nvim names the proposed side of a diff in its selection_changed. */
const PI_PROPOSED_SUFFIX = ' [pi-proposed]';
/** claudecode.nvim's proposed buffer: `<cwd>/<tab name> (proposed)`, a new file's `(NEW FILE - proposed)`. */
const NVIM_PROPOSED_BUFFER = / \((?:NEW FILE - )?proposed\)$/;

/**
 * An editor's notification in the agent's dialect; the same object when nothing changes.
 * `selection_changed`: pi-ide.nvim sends `{text,filePath,selection}`, Claude-dialect editors
 * add `fileUrl`. While the cursor is in a diff's proposed side, pi-ide.nvim names it
 * `<path> [pi-proposed]`, VS Code gives the file's path with fileUrl `_claude_fs_right:<path>`,
 * and claudecode.nvim the proposed buffer's own name, whose diff `fileOfTab` finds by its tab.
 */
export function translateNotification<N extends { method: string; params?: unknown }>(
  msg: N,
  from: Dialect,
  to: Dialect,
  fileOfTab: (editorTab: string) => string | null = () => null,
): N {
  if (from === to || msg.method !== 'selection_changed' || !isObject(msg.params)) return msg;
  const params = msg.params;
  if (typeof params.filePath !== 'string') return msg;
  if (to === 'pi') {
    const { fileUrl, ...rest } = params;
    if (typeof fileUrl === 'string' && fileUrl.startsWith(PROPOSED_SIDE)) return { ...msg, params: { ...rest, filePath: `${params.filePath}${PI_PROPOSED_SUFFIX}` } };
    const buffer = NVIM_PROPOSED_BUFFER.test(params.filePath) ? fileOfTab(basename(params.filePath.replace(NVIM_PROPOSED_BUFFER, ''))) : null;
    return { ...msg, params: { ...rest, filePath: buffer === null ? params.filePath : `${buffer}${PI_PROPOSED_SUFFIX}` } };
  }
  if (typeof params.fileUrl === 'string') return msg;
  const proposed = params.filePath.endsWith(PI_PROPOSED_SUFFIX);
  const path = proposed ? params.filePath.slice(0, -PI_PROPOSED_SUFFIX.length) : params.filePath;
  const fileUrl = proposed ? `${PROPOSED_SIDE}${path}` : `file://${path.split('/').map(encodeURIComponent).join('/')}`;
  return { ...msg, params: { ...params, filePath: path, fileUrl } };
}

/**
 * Whether an editor's DIFF_REJECTED may mean the person closed the diff's tab: claudecode.nvim
 * (Neovim in the Claude dialect) rejects when the tab closes, and its close_tab for a tab already
 * gone closes whichever tab is current instead. VS Code keeps the tab after Reject until
 * close_tab; the others close one that is gone as a no-op or an error.
 */
export function closesTabOnReject(editor: { dialect: Dialect; ideName: string }): boolean {
  return editor.dialect === 'claude' && editor.ideName === 'Neovim';
}
