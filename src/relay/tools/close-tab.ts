// close_tab: the agent closes its own diff (pi-ide fires one after every openDiff; Claude Code
// two after a decision). A pending diff of that name is withdrawn; the answer is always TAB_CLOSED.
import { z } from 'zod';
import { textResult } from '../../protocol/mcp.ts';
import { defineTool, text } from './tool.ts';

export const closeTab = defineTool({
  names: ['close_tab'],
  args: z.looseObject({ tab_name: text() }),
  builtin: {
    name: 'close_tab',
    description: 'Close a pending diff by tab name.',
    inputSchema: { type: 'object', properties: { tab_name: { type: 'string' } }, required: ['tab_name'], additionalProperties: false },
  },
  async handle(ctx, { session, msg, args }) {
    const id = ctx.review.inbox.findByTab(session.id, args.tab_name);
    if (id) ctx.review.run(ctx.review.inbox.withdraw(id));
    session.link.respond(msg.id, textResult('TAB_CLOSED'));
  },
});
