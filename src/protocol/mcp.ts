// The MCP subset the peers speak: tool results are `{content:[{type:'text',text}]}`.

export const MCP_PROTOCOL_VERSION = '2024-11-05';
export const SERVER_NAME = 'Patchbay';

export interface TextContent {
  type: 'text';
  text: string;
}

export interface ToolResult {
  content: TextContent[];
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

export function initializeResult(version: string): unknown {
  return {
    protocolVersion: MCP_PROTOCOL_VERSION,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: SERVER_NAME, version },
  };
}

export interface OpenDiffArgs {
  old_file_path: string;
  new_file_path: string;
  new_file_contents: string;
  tab_name: string;
}

/** Validates `openDiff` arguments; returns a message naming the bad field, or the args. */
export function parseOpenDiffArgs(value: unknown): OpenDiffArgs | string {
  if (typeof value !== 'object' || value === null) return 'openDiff: arguments must be an object';
  const args = value as Record<string, unknown>;
  for (const key of ['old_file_path', 'new_file_path', 'new_file_contents', 'tab_name'] as const) {
    if (typeof args[key] !== 'string') return `openDiff: "${key}" must be a string`;
  }
  return args as unknown as OpenDiffArgs;
}

const object = (properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** The tools Patchbay serves itself when no editor is bound (the built-in reviewer). */
export const PATCHBAY_TOOLS: ToolSpec[] = [
  {
    name: 'openDiff',
    description: 'Propose a file change for review in Patchbay. Blocks until the person accepts or rejects it.',
    inputSchema: object(
      {
        old_file_path: { type: 'string' },
        new_file_path: { type: 'string' },
        new_file_contents: { type: 'string' },
        tab_name: { type: 'string' },
      },
      ['old_file_path', 'new_file_path', 'new_file_contents', 'tab_name'],
    ),
  },
  { name: 'close_tab', description: 'Close a pending diff by tab name.', inputSchema: object({ tab_name: { type: 'string' } }, ['tab_name']) },
  { name: 'closeAllDiffTabs', description: "Close this session's diffs.", inputSchema: object({}) },
  { name: 'getDiagnostics', description: 'Diagnostics (none without an editor).', inputSchema: object({ uri: { type: 'string' } }) },
];
