// Requests an editor sends to its agents (getSuggestions, listSuggestionModels, others):
// each goes to one session, and request_cancelled follows it there. Suggestions are pi's and
// follow the folder: the pi working in one of the editor's folders gets them, whichever editor
// (or Patchbay itself) reviews that pi's edits.
import type { PatchbaySettings } from '../api/types.ts';
import { containingDepth } from '../broker/folders.ts';
import { INTERNAL_ERROR, METHOD_NOT_FOUND, type RpcId, type RpcNotification, type RpcRequest } from '../protocol/jsonrpc.ts';
import { chooseSuggestionSession, injectModel, modelToInject, suggestionModelChoice } from '../suggestions/models.ts';
import { requestToRemote } from './remote-paths.ts';
import type { Frame, RpcLink } from './rpc-link.ts';
import { sessionKey, type Session } from './session.ts';

interface Forwarded {
  session: Session;
  /** The id the request has on the agent's link. */
  id: RpcId;
  editorId: string;
}

export class EditorRequests {
  /** Per editor link: the editor's request id → where it went. */
  private readonly forwarded = new WeakMap<RpcLink, Map<RpcId, Forwarded>>();

  constructor(
    private readonly sessions: () => Iterable<Session>,
    private readonly settings: () => PatchbaySettings,
    /** An editor's workspace folders (none when it is not live). */
    private readonly folders: (editorId: string) => readonly string[] = () => [],
  ) {}

  /** How many of the editor's requests on `link` still wait for an agent. */
  waiting(link: RpcLink): number {
    return this.forwarded.get(link)?.size ?? 0;
  }

  /**
   * Suggestions go to a pi session working in one of the editor's folders (the deepest match), or
   * else bound to it; anything else to a session bound to the editor.
   */
  route(editorId: string, from: RpcLink, msg: RpcRequest, frame: Frame): void {
    const settings = this.settings();
    const piOnly = msg.method === 'getSuggestions' || msg.method === 'listSuggestionModels';
    const file = (msg.params as { filePath?: unknown } | undefined)?.filePath;
    const candidates = piOnly
      ? this.suggesters(editorId, typeof file === 'string' ? file : null)
      : [...this.sessions()].filter((s) => !s.closed && s.editorId === editorId);
    const chosen = chooseSuggestionSession(
      editorId,
      candidates.map((s) => ({ sessionId: s.id, key: sessionKey(s) ?? s.id, lastActiveAt: s.lastActiveAt })),
      settings,
    );
    const session = candidates.find((s) => s.id === chosen);
    if (!session) {
      const none = piOnly ? "no pi session works in this editor's folders or is bound to it" : 'no session is bound to this editor';
      from.respondError(msg.id, METHOD_NOT_FOUND, `Patchbay: ${none} for ${msg.method}`);
      return;
    }
    let call;
    // An agent on a remote knows its files by the remote's paths.
    const request = session.remote ? requestToRemote(msg, session.remote.maps) : msg;
    if (msg.method === 'getSuggestions') {
      const requested = (msg.params as { model?: unknown } | undefined)?.model;
      const model = modelToInject(suggestionModelChoice(settings, editorId), session.models, typeof requested === 'string' ? requested : undefined);
      call = session.link.relay({ ...request, params: injectModel(request.params, model) }, null, { passOn: { to: from, id: msg.id } });
    } else {
      call = session.link.relay(request, request === msg ? frame : null, { passOn: { to: from, id: msg.id } });
    }
    let pending = this.forwarded.get(from);
    if (!pending) this.forwarded.set(from, (pending = new Map()));
    pending.set(msg.id, { session, id: call.id, editorId });
    const map = pending;
    // The answer went on to the editor as it arrived (passOn); only a link lost first is answered here.
    call.response
      .catch((err: Error) => from.respondError(msg.id, INTERNAL_ERROR, `Patchbay: ${err.message}`))
      .finally(() => map.delete(msg.id));
  }

  /**
   * Who may suggest for the editor: the pi sessions working where its file is (the deepest folder
   * holding it), else those working in any of the editor's folders, else those bound to it.
   */
  private suggesters(editorId: string, file: string | null): Session[] {
    const pis = [...this.sessions()].filter((s) => !s.closed && s.dialect === 'pi');
    const folders = this.folders(editorId);
    const inEditor = pis.filter((s) => s.process?.cwd && containingDepth(folders, s.process.cwd) >= 0);
    if (file !== null) {
      const depth = (s: Session): number => (s.process?.cwd ? containingDepth([s.process.cwd], file) : -1);
      const deepest = Math.max(-1, ...inEditor.map(depth));
      if (deepest >= 0) return inEditor.filter((s) => depth(s) === deepest);
    }
    if (inEditor.length > 0) return inEditor;
    return pis.filter((s) => s.editorId === editorId);
  }

  cancel(from: RpcLink, msg: RpcNotification): void {
    const id = (msg.params as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const pending = this.forwarded.get(from);
    const target = pending?.get(id);
    if (!target) return;
    pending!.delete(id);
    // The editor no longer waits; pi may never answer a cancelled request, so stop waiting too.
    target.session.link.forget(target.id);
    if (!target.session.closed) target.session.link.notify('request_cancelled', { id: target.id });
  }
}
