// The suggestion models a pi session offers (`listSuggestionModels`, DESIGN §8): asked by
// Patchbay itself, one question at a time per session.
import type { SessionModels } from '../api/types.ts';
import { parseModelList } from '../suggestions/models.ts';
import { withTimeout } from './editor-link.ts';
import type { Session } from './session.ts';

/** How long pi gets to answer `listSuggestionModels`. */
export const MODELS_TIMEOUT_MS = 5000;

export function noModels(sessionId: string): SessionModels {
  return { sessionId, cliOverride: null, currentModel: null, models: [], fetchedAt: null, error: null };
}

/** Asks again unless a question is already out; the answer (or the error) lands in `session.models`. */
export function askModels(session: Session, now: () => number): Promise<SessionModels> {
  session.modelsAsked ??= (async () => {
    const call = session.link.request('listSuggestionModels', []);
    try {
      const { msg: response } = await withTimeout(call.response, MODELS_TIMEOUT_MS, 'listSuggestionModels');
      if (response.error) throw new Error(response.error.message);
      session.models = { sessionId: session.id, ...parseModelList(response.result), fetchedAt: now(), error: null };
    } catch (err) {
      session.link.forget(call.id); // a late answer is dropped, not waited for
      session.models = { ...session.models, error: (err as Error).message };
    } finally {
      session.modelsAsked = null;
    }
    return session.models;
  })();
  return session.modelsAsked;
}
