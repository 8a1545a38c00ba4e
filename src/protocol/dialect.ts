// The two dialects of the same protocol, and the translations between them (DESIGN §1, §6).
import type { Dialect } from '../api/types.ts';
import type { ToolSpec } from './mcp.ts';
import { resultTexts, textResult } from './mcp.ts';

export type { Dialect };

export const AUTH_HEADER: Record<Dialect, string> = {
  pi: 'x-pi-ide-authorization',
  claude: 'x-claude-code-ide-authorization',
};

/** Tools with a different name per dialect. */
const OPEN_EDITORS: Record<Dialect, string> = { pi: 'getOpenEditorTabs', claude: 'getOpenEditors' };

/** The name the editor knows a tool by, for a call made in the agent's dialect. */
export function toolNameFor(name: string, from: Dialect, to: Dialect): string {
  return name === OPEN_EDITORS[from] ? OPEN_EDITORS[to] : name;
}

export interface Diagnostic {
  [key: string]: unknown;
}
type DiagnosticsMap = Record<string, Diagnostic[]>;
type DiagnosticsArray = { uri: string; diagnostics: Diagnostic[] }[];

/** Reads either shape into a map. pi-ide.nvim encodes an empty map as `[]` (Lua's empty table). */
function diagnosticsToMap(value: unknown): DiagnosticsMap | null {
  if (Array.isArray(value)) {
    const map: DiagnosticsMap = {};
    for (const item of value) {
      if (typeof item !== 'object' || item === null) return null;
      const { uri, diagnostics } = item as { uri?: unknown; diagnostics?: unknown };
      if (typeof uri !== 'string') return null;
      map[uri] = Array.isArray(diagnostics) ? (diagnostics as Diagnostic[]) : [];
    }
    return map;
  }
  if (typeof value === 'object' && value !== null) return value as DiagnosticsMap;
  return null;
}

function encodeDiagnostics(map: DiagnosticsMap, to: Dialect): string {
  if (to === 'pi') return JSON.stringify(map);
  return JSON.stringify(Object.entries(map).map(([uri, diagnostics]) => ({ uri, diagnostics })));
}

export function emptyDiagnostics(to: Dialect): unknown {
  return textResult(encodeDiagnostics({}, to));
}

/** Rewrites a `getDiagnostics` result into the agent's dialect; unknown shapes pass through. */
export function translateDiagnostics(result: unknown, to: Dialect): unknown {
  const texts = resultTexts(result);
  if (!texts || texts.length === 0) return result;
  const merged: DiagnosticsMap = {};
  for (const text of texts) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return result;
    }
    const map = diagnosticsToMap(parsed);
    if (!map) return result;
    Object.assign(merged, map);
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
  const text = resultTexts(result)?.[0];
  if (text === undefined) return result;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return result;
  }
  const tabs: unknown = Array.isArray(parsed) ? parsed : (parsed as { tabs?: unknown } | null)?.tabs;
  if (!Array.isArray(tabs)) return result;
  const list = tabs.filter((t): t is EditorTab => typeof t === 'object' && t !== null && typeof t.uri === 'string');
  if (to === 'pi') return textResult(JSON.stringify(list));
  const withLabels = list.map((t) => ({ ...t, label: t.label ?? t.uri.split('/').pop() ?? t.uri }));
  return textResult(JSON.stringify({ tabs: withLabels }));
}

/**
 * A tool list fit for the agent: names in its dialect, and schemas Claude Code accepts
 * (pi-ide.nvim's empty `properties` is a Lua empty table, encoded as `[]`).
 */
export function cleanToolList(tools: ToolSpec[], from: Dialect, to: Dialect): ToolSpec[] {
  return tools.map((tool) => {
    const schema = { ...(tool.inputSchema ?? {}) } as Record<string, unknown>;
    if (Array.isArray(schema.properties)) schema.properties = {};
    if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
    if (schema.type === undefined) schema.type = 'object';
    return { ...tool, name: toolNameFor(tool.name, from, to), inputSchema: schema };
  });
}
