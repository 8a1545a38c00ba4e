// The open-editors tool, named per dialect (getOpenEditorTabs for pi, getOpenEditors for
// Claude): renamed for the bound editor and its answer reshaped for the agent. An editor of the
// other dialect that has no such tool (VS Code's extension since 2.1.327, claude-code-ide.el) is
// not asked: the agent hears of no open tab, as with no editor.
import { z } from 'zod';
import { emptyOpenEditors, toolNameFor, translateOpenEditors } from '../../protocol/dialect.ts';
import type { RpcResponse } from '../../protocol/jsonrpc.ts';
import { tabsToRemote } from '../remote-paths.ts';
import { defineTool } from './tool.ts';

export const openEditors = defineTool({
  names: ['getOpenEditorTabs', 'getOpenEditors'],
  args: z.looseObject({}),
  async handle(ctx, { session, msg, frame }) {
    const editor = ctx.boundEditor(session);
    if (!editor) return session.link.respond(msg.id, emptyOpenEditors(session.dialect));
    const { dialect } = editor.instance;
    const { remote } = session;
    if (dialect === session.dialect && !remote) return ctx.forward(session, msg, frame, null);
    const params = msg.params as { name: string };
    const name = toolNameFor(params.name, session.dialect, dialect);
    const offered = editor.connection.tools;
    if (offered !== null && !offered.some((tool) => tool.name === name)) return session.link.respond(msg.id, emptyOpenEditors(session.dialect));
    const renamed = { ...msg, params: { ...params, name } };
    // A remote agent sees the tabs of files it can open, by its own paths.
    const shape = (result: unknown): unknown => (remote ? tabsToRemote(translateOpenEditors(result, session.dialect), remote.maps) : translateOpenEditors(result, session.dialect));
    const translate = (r: RpcResponse): RpcResponse => (r.result === undefined ? r : { ...r, result: shape(r.result) });
    return ctx.forward(session, renamed, null, translate, true);
  },
});
