// openDiff: every proposed edit waits in Patchbay's inbox until a person decides (DESIGN §7).
// The request goes on to the editor as it arrived, before its original is read; its proposal
// stays the bytes it came in (a LazyText when the frame was big) until someone reads it.
import { z } from 'zod';
import { LazyText } from '../../protocol/lazy-json.ts';
import type { ToolResult } from '../../protocol/mcp.ts';
import { cutToBytes, diffPathProblem, MAX_PATH_BYTES, MAX_TAB_NAME_BYTES, tabNameProblem } from '../../review/diff-limits.ts';
import { diffRejected } from '../../review/inbox.ts';
import type { RemotePlace } from '../../api/types.ts';
import { toLocal } from '../../remote/paths.ts';
import { reviewModeFor } from '../../review/review-mode.ts';
import type { Original } from '../../review/read-original.ts';
import { frameHeld } from '../rpc-link.ts';
import type { RemoteSide, Session } from '../session.ts';
import { defineTool, text, type ToolCall, type ToolContext } from './tool.ts';

/** A name (path, tab): a string; one big enough to stay undecoded in its frame is far over its cap. */
const name = (maxBytes: number) =>
  z.union([text(), z.instanceof(LazyText)], { error: 'must be a string' }).transform((value, ctx) => {
    if (typeof value === 'string') return value;
    ctx.addIssue({ code: 'custom', message: `is longer than ${maxBytes} bytes` });
    return z.NEVER;
  });

export const openDiffArgs = z.looseObject({
  old_file_path: name(MAX_PATH_BYTES),
  new_file_path: name(MAX_PATH_BYTES),
  new_file_contents: z.union([text(), z.instanceof(LazyText)], { error: 'must be a string' }),
  tab_name: name(MAX_TAB_NAME_BYTES),
});

export type OpenDiffArgs = z.output<typeof openDiffArgs>;

/** Why Patchbay will not hold this diff (DESIGN §10), or null. */
function problemWith(args: OpenDiffArgs): string | null {
  const problem =
    diffPathProblem('new_file_path', args.new_file_path) ??
    diffPathProblem('old_file_path', args.old_file_path, { optional: true }) ??
    tabNameProblem(args.tab_name);
  return problem && `openDiff: ${problem}`;
}

/**
 * pi-ide writes the file unreviewed when openDiff fails: a diff that cannot be held is answered
 * DIFF_REJECTED (never an error), with Patchbay's reason after the tab name.
 */
export function refusedDiff(tabName: unknown, problem: string): ToolResult {
  const rejected = diffRejected(typeof tabName === 'string' ? cutToBytes(tabName, MAX_TAB_NAME_BYTES) : '');
  return { content: [...rejected.content, { type: 'text', text: `Patchbay: ${problem}` }] };
}

function reject(ctx: ToolContext, { session, msg, args }: ToolCall, problem: string): void {
  ctx.log(`${session.id}: ${problem}`);
  session.link.respond(msg.id, refusedDiff((args as { tab_name?: unknown } | null)?.tab_name, problem));
}

export const openDiff = defineTool({
  names: ['openDiff'],
  args: openDiffArgs,
  builtin: {
    name: 'openDiff',
    description: 'Propose a file change for review in Patchbay. Blocks until the person accepts or rejects it.',
    inputSchema: {
      type: 'object',
      properties: {
        old_file_path: { type: 'string' },
        new_file_path: { type: 'string' },
        new_file_contents: { type: 'string' },
        tab_name: { type: 'string' },
      },
      required: ['old_file_path', 'new_file_path', 'new_file_contents', 'tab_name'],
      additionalProperties: false,
    },
  },
  async handle(ctx, call) {
    const { session, msg, frame, args } = call;
    if (session.closed) return;
    const problem = problemWith(args) ?? ctx.review.overBudget(frameHeld(frame));
    if (problem) return reject(ctx, call, problem);
    // A remote agent's file as it is here: reviewed there, in the editor and in Patchbay.
    const seen = session.remote ? seenHere(session.remote, args) : null;
    const local = seen?.args ?? args;
    const place = seen?.place;
    const readOriginal = (): Promise<Original> => readOriginalOf(ctx, session, local, place);
    // Reviewed after only where Patchbay can take the edit back: a file here.
    if (place?.mapped !== false && reviewModeFor(ctx.settings(), local.new_file_path) === 'after') {
      // Answered at once, once the file before the edit is kept (it is read first).
      const original = await readOriginal();
      if (session.closed) return;
      const applied = ctx.review.applyAfter(session, msg, local, original, place);
      if ('answered' in applied) return applied.answered;
      const held = ctx.review.receive(session, msg, frame, local, { remote: place, reviewedBefore: applied.reviewBefore });
      ctx.review.originalRead(held.id, original);
      return held.answered;
    }
    // The request stays open until a decision answers it.
    const { id, answered } = ctx.review.receive(session, msg, frame, local, place ? { remote: place } : {});
    ctx.review.originalRead(id, await readOriginal());
    await answered;
  },
  refuse: (ctx, call, problem) => reject(ctx, call, problem),
});

/**
 * A remote agent's openDiff as this machine sees it: its paths mapped here, and where it is over
 * there. With no map covering it, it is not a file here: only Patchbay reviews it, by its remote path.
 */
export function seenHere(remote: RemoteSide, args: OpenDiffArgs): { args: OpenDiffArgs; place: RemotePlace } {
  const local = toLocal(remote.maps, args.new_file_path);
  const place = { name: remote.name, path: args.new_file_path, mapped: local !== null };
  if (local === null) return { args, place };
  const old = (args.old_file_path && toLocal(remote.maps, args.old_file_path)) || local;
  return { args: { ...args, new_file_path: local, old_file_path: old }, place };
}

/** The file a diff is reviewed against: here, or over there (read through the tunnel) where no map covers it. */
export function readOriginalOf(ctx: Pick<ToolContext, 'readOriginal' | 'review'>, session: Session, args: OpenDiffArgs, place: RemotePlace | undefined): Promise<Original> {
  const room = ctx.review.room();
  if (place && !place.mapped && session.remote) return session.remote.readOriginal(place.path, room);
  return ctx.readOriginal(args.old_file_path || args.new_file_path, room);
}
