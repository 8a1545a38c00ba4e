// The shape of an intercepted tool (STYLE: one module per protocol tool, as claudecode.nvim
// keeps them): a zod schema for its arguments and a handler. The relay only dispatches.
import { z } from 'zod';
import type { PatchbaySettings } from '../../api/types.ts';
import { INVALID_PARAMS, type RpcRequest, type RpcResponse } from '../../protocol/jsonrpc.ts';
import type { ToolSpec } from '../../protocol/mcp.ts';
import type { Original } from '../../review/read-original.ts';
import type { EditorEntry } from '../editor-registry.ts';
import type { ReviewBridge } from '../review-bridge.ts';
import type { Frame } from '../rpc-link.ts';
import type { Session } from '../session.ts';

/** What a tool may ask of the relay. */
export interface ToolContext {
  readonly review: ReviewBridge;
  /** The live editor the session is bound to, if any. */
  boundEditor(session: Session): EditorEntry | undefined;
  /**
   * Forwards the call to the bound editor under an id of the editor link's own, and its answer
   * back under the agent's (a big frame read lazily as its bytes, with only the id replaced);
   * without an editor, says so in the agent's terms.
   */
  forward(
    session: Session,
    msg: RpcRequest,
    frame: Frame | null,
    translate: ((r: RpcResponse) => RpcResponse) | null,
    /** The call and `translate` already name a remote session's files as each side knows them. */
    pathsMapped?: boolean,
  ): Promise<void>;
  /** The on-disk contents a diff is reviewed against, read up to `maxBytes` (and the review's own cap). */
  readOriginal(path: string, maxBytes: number): Promise<Original>;
  settings(): PatchbaySettings;
  now(): number;
  log(message: string): void;
}

/** One `tools/call` from an agent, its arguments not yet checked. */
export interface ToolCall<A = unknown> {
  session: Session;
  msg: RpcRequest;
  frame: Frame;
  args: A;
}

export interface InterceptedTool {
  /** The tool names it answers (the open-editors tool has one per dialect). */
  readonly names: readonly string[];
  /** Served in `tools/list` when no editor is bound (Patchbay's own reviewer). */
  readonly builtin?: ToolSpec;
  run(ctx: ToolContext, call: ToolCall): Promise<void>;
}

interface ToolDefinition<S extends z.ZodType> {
  names: readonly string[];
  args: S;
  builtin?: ToolSpec;
  handle(ctx: ToolContext, call: ToolCall<z.output<S>>): Promise<void>;
  /** Arguments that do not fit the schema; by default an INVALID_PARAMS error. */
  refuse?(ctx: ToolContext, call: ToolCall, problem: string): void;
}

/** `"tab_name" must be a string` — the first problem, naming its field. */
export function describeArgsError(tool: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `${tool}: invalid arguments`;
  const field = issue.path.length > 0 ? `"${issue.path.join('.')}" ` : 'arguments ';
  return `${tool}: ${field}${issue.message}`;
}

export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): InterceptedTool {
  const name = definition.names[0] ?? 'tool';
  return {
    names: definition.names,
    ...(definition.builtin ? { builtin: definition.builtin } : {}),
    run(ctx, call) {
      const parsed = definition.args.safeParse(call.args ?? {});
      if (parsed.success) return definition.handle(ctx, { ...call, args: parsed.data });
      const problem = describeArgsError(name, parsed.error);
      ctx.log(`${call.session.id}: ${problem}`);
      if (definition.refuse) definition.refuse(ctx, call, problem);
      else call.session.link.respondError(call.msg.id, INVALID_PARAMS, problem);
      return Promise.resolve();
    },
  };
}

/** Extra keys pass (agents add `_meta`); only the ones named are checked. */
export const text = (what = 'a string') => z.string({ error: `must be ${what}` });
