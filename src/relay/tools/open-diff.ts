// openDiff: every proposed edit waits in Patchbay's inbox until a person decides (DESIGN §7).
// The request goes on to the editor as it arrived, before its original is read; its proposal
// stays the bytes it came in (a LazyText when the frame was big) until someone reads it.
import { z } from 'zod';
import { LazyText } from '../../protocol/lazy-json.ts';
import { cutToBytes, diffPathProblem, MAX_PATH_BYTES, MAX_TAB_NAME_BYTES, tabNameProblem } from '../../review/diff-limits.ts';
import { diffRejected } from '../../review/inbox.ts';
import { toLocal } from '../../remote/paths.ts';
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

// pi-ide writes the file unreviewed when openDiff fails: a diff that cannot be held is rejected, saying why.
function reject(ctx: ToolContext, { session, msg, args }: ToolCall, problem: string): void {
  ctx.log(`${session.id}: ${problem}`);
  const tab = (args as { tab_name?: unknown } | null)?.tab_name;
  const rejected = diffRejected(typeof tab === 'string' ? cutToBytes(tab, MAX_TAB_NAME_BYTES) : '');
  session.link.respond(msg.id, { content: [...rejected.content, { type: 'text', text: `Patchbay: ${problem}` }] });
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
    const problem = problemWith(args) ?? ctx.review.overBudget(frame.bytes.length);
    if (problem) return reject(ctx, call, problem);
    const remote = session.remote;
    if (remote) {
      // The file over there as it is here: reviewed there, in the editor and in Patchbay. With
      // no map covering it, it is not a file here: only Patchbay reviews it, by its remote path.
      const local = toLocal(remote.maps, args.new_file_path);
      const place = { name: remote.name, path: args.new_file_path, mapped: local !== null };
      const old = (args.old_file_path && toLocal(remote.maps, args.old_file_path)) || local;
      const mapped = local === null ? args : { ...args, new_file_path: local, old_file_path: old ?? local };
      const { id, answered } = ctx.review.receive(session, msg, frame, mapped, place);
      const room = ctx.review.room();
      const original = local === null ? await remote.readOriginal(args.new_file_path, room) : await ctx.readOriginal(mapped.old_file_path || mapped.new_file_path, room);
      ctx.review.originalRead(id, original);
      await answered;
      return;
    }
    // The request stays open until a decision answers it.
    const { id, answered } = ctx.review.receive(session, msg, frame, args);
    ctx.review.originalRead(id, await ctx.readOriginal(args.old_file_path || args.new_file_path, ctx.review.room()));
    await answered;
  },
  refuse: (ctx, call, problem) => reject(ctx, call, problem),
});
