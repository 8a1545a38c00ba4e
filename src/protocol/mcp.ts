// The MCP subset the peers speak: tool results are `{content:[{type:'text',text}]}`.

export const MCP_PROTOCOL_VERSION = '2024-11-05';
export const SERVER_NAME = 'Patchbay';

/** `T`: how the text is held (a string, or a LazyText still in its frame). */
export interface TextContent<T = string> {
  type: 'text';
  text: T;
}

export interface ToolResult<T = string> {
  content: TextContent<T>[];
  isError?: boolean;
}

export interface ToolSpec {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export function textResult(...texts: string[]): ToolResult {
  return { content: texts.map((text) => ({ type: 'text', text })) };
}

/** The text items of a tool result, or null when it is not one. */
export function resultTexts(value: unknown): string[] | null {
  if (typeof value !== 'object' || value === null) return null;
  const content = (value as { content?: unknown }).content;
  if (!Array.isArray(content)) return null;
  return content.map((item) =>
    typeof item === 'object' && item !== null && typeof (item as TextContent).text === 'string' ? (item as TextContent).text : '',
  );
}

/** A tool result's first text item parsed as JSON (`{ value }`), or null when it has none or it is not JSON. */
export function firstTextJson(result: unknown): { value: unknown } | null {
  const text = resultTexts(result)?.[0];
  if (text === undefined) return null;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

export function initializeResult(version: string): unknown {
  return {
    protocolVersion: MCP_PROTOCOL_VERSION,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: SERVER_NAME, version },
  };
}
