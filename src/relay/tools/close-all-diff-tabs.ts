// closeAllDiffTabs: Claude Code calls it at every prompt; it closes only that session's diffs.
import { z } from 'zod';
import { textResult } from '../../protocol/mcp.ts';
import { newTurn } from '../session.ts';
import { defineTool } from './tool.ts';

export const closeAllDiffTabs = defineTool({
  names: ['closeAllDiffTabs'],
  args: z.looseObject({}),
  builtin: {
    name: 'closeAllDiffTabs',
    description: "Close this session's diffs.",
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
  },
  async handle(ctx, { session, msg }) {
    // Sent at every prompt: what the agent does from here on is its next turn.
    newTurn(session, ctx.now());
    const { inbox } = ctx.review;
    const ids = inbox.idsFor(session.id);
    ctx.review.run(ids.flatMap((id) => inbox.withdraw(id)));
    session.link.respond(msg.id, textResult(`CLOSED_${ids.length}_DIFF_TABS`));
  },
});
