// openDiff: every proposed edit waits in Patchbay's inbox until a person decides (DESIGN §7).
import { z } from 'zod';
import { diffRejected } from '../../review/inbox.ts';
import { defineTool, text } from './tool.ts';

export const openDiffArgs = z.looseObject({
  old_file_path: text(),
  new_file_path: text(),
  new_file_contents: text(),
  tab_name: text(),
});

export type OpenDiffArgs = z.output<typeof openDiffArgs>;

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
  async handle(ctx, { session, msg, frame, args }) {
    const original = await ctx.readOriginal(args.old_file_path || args.new_file_path);
    if (session.closed) return;
    // The request stays open until a decision answers it.
    await ctx.review.receive(session, msg, frame, args, original);
  },
  // pi-ide writes the file unreviewed when openDiff fails: a diff that cannot be shown is rejected.
  refuse(_ctx, { session, msg, args }, problem) {
    const tab = (args as { tab_name?: unknown } | null)?.tab_name;
    const rejected = diffRejected(typeof tab === 'string' ? tab : '');
    session.link.respond(msg.id, { content: [...rejected.content, { type: 'text', text: `Patchbay: ${problem}` }] });
  },
});
