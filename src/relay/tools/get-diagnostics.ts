// getDiagnostics: pi-ide asks before every model call and waits with no timeout, so a slow
// editor would stall the agent. The answer comes within the deadline (a setting), else empty.
import { z } from 'zod';
import { emptyDiagnostics, translateDiagnostics } from '../../protocol/dialect.ts';
import type { RpcId } from '../../protocol/jsonrpc.ts';
import { withTimeout } from '../editor-link.ts';
import { addReviewNotes, type ReviewNote } from '../review-notes.ts';
import type { Session } from '../session.ts';
import type { Dialect } from '../../api/types.ts';
import { diagnosticsToRemote, requestToLocal } from '../remote-paths.ts';
import { answer, type RpcLink } from '../rpc-link.ts';
import { defineTool } from './tool.ts';

export const getDiagnostics = defineTool({
  names: ['getDiagnostics'],
  args: z.looseObject({ uri: z.string({ error: 'must be a string' }).optional() }),
  builtin: {
    name: 'getDiagnostics',
    description: 'Diagnostics (none without an editor).',
    inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: [], additionalProperties: false },
  },
  async handle(ctx, { session, msg, frame }) {
    // The person's words about a decision, read once (review-notes.ts); usually there are none.
    const notes = session.reviewNotes.length === 0 ? NO_NOTES : session.reviewNotes.splice(0);
    const editor = ctx.boundEditor(session);
    if (!editor) return session.link.respond(msg.id, emptyAnswer(session, notes));
    const deadline = ctx.settings().diagnosticsDeadlineMs;
    const started = ctx.now();
    let link: RpcLink | undefined;
    let callId: RpcId | undefined;
    try {
      // The usual case, an open link, needs no connect deadline of its own.
      link = editor.connection.openLink() ?? (await withTimeout(editor.connection.link(), deadline, 'getDiagnostics'));
      const { remote } = session;
      // A remote agent's files are named as it knows them, both ways: its frame cannot pass as it came.
      const asItCame = editor.instance.dialect === session.dialect && !remote;
      // Passed on as it came, but for its id, unless it is translated, carries notes or is an error.
      const passOn = asItCame && notes.length === 0 ? { to: session.link, id: msg.id, unlessError: true } : undefined;
      const reading = { deadline: { ms: Math.max(1, deadline - (ctx.now() - started)), what: 'getDiagnostics' }, owner: session, passOn };
      const params = remote ? requestToLocal(msg, remote.maps).params : msg.params;
      const call = asItCame
        ? link.relay(msg, frame, reading)
        : link.request('tools/call', { ...(params as object), name: 'getDiagnostics' }, reading);
      callId = call.id;
      const reply = await call.response;
      // Passed on unless it is an error, which is answered empty.
      if (reply.passedOn) return;
      if (reply.msg.error) throw new Error(reply.msg.error.message);
      answer(session.link, msg.id, reply, (r) => ({ ...r, result: addReviewNotes(shaped(r.result, session.dialect, remote), notes, session.dialect) }));
    } catch (err) {
      if (link && callId !== undefined) link.forget(callId);
      ctx.log(`${session.id}: getDiagnostics answered empty: ${(err as Error).message}`);
      session.link.respond(msg.id, emptyAnswer(session, notes));
    }
  },
});

const NO_NOTES: readonly ReviewNote[] = [];

/** No diagnostics, in the session's dialect, with its notes. */
function emptyAnswer(session: Session, notes: readonly ReviewNote[]): unknown {
  return addReviewNotes(emptyDiagnostics(session.dialect), notes, session.dialect);
}

/** The editor's diagnostics as the session reads them: its dialect, and a remote agent's paths. */
function shaped(result: unknown, dialect: Dialect, remote: Session['remote']): unknown {
  const translated = translateDiagnostics(result, dialect);
  return remote ? diagnosticsToRemote(translated, dialect, remote.maps) : translated;
}
