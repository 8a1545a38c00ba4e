// The table of tools Patchbay intercepts; every other tool call passes to the bound editor.
import type { ToolSpec } from '../../protocol/mcp.ts';
import { closeAllDiffTabs } from './close-all-diff-tabs.ts';
import { closeTab } from './close-tab.ts';
import { getDiagnostics } from './get-diagnostics.ts';
import { openDiff } from './open-diff.ts';
import { openEditors } from './open-editors.ts';
import type { InterceptedTool } from './tool.ts';

export type { InterceptedTool, ToolCall, ToolContext } from './tool.ts';

const TOOLS: readonly InterceptedTool[] = [openDiff, closeTab, closeAllDiffTabs, getDiagnostics, openEditors];

const BY_NAME: ReadonlyMap<string, InterceptedTool> = new Map(TOOLS.flatMap((tool) => tool.names.map((name) => [name, tool] as const)));

/** The tool Patchbay handles for this name, if it intercepts it. */
export function interceptedTool(name: string): InterceptedTool | undefined {
  return BY_NAME.get(name);
}

/** What `tools/list` answers when no editor is bound: Patchbay's own reviewer. */
export const BUILTIN_TOOLS: readonly ToolSpec[] = TOOLS.flatMap((tool) => (tool.builtin ? [tool.builtin] : []));
