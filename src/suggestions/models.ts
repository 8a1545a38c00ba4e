// The suggestion-model rules (DESIGN §6, §8), as pure functions: what a pi session offers,
// which model goes into each relayed `getSuggestions`, and which bound session serves it.
import type { PatchbaySettings, SessionModels, SuggestionModel } from '../api/types.ts';
import { isObject, kindOf } from '../api/json.ts';

export interface ModelList {
  /** What pi was started with (e.g. `--model x`); it wins over any model a request names. */
  cliOverride: string | null;
  currentModel: string | null;
  models: SuggestionModel[];
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** One entry; those without a provider and an id cannot be chosen and are dropped. */
function parseModel(value: unknown): SuggestionModel | null {
  if (!isObject(value)) return null;
  const provider = nonEmptyString(value.provider);
  const id = nonEmptyString(value.id);
  if (provider === null || id === null) return null;
  return {
    provider,
    id,
    name: nonEmptyString(value.name) ?? id,
    model: nonEmptyString(value.model) ?? `${provider}/${id}`,
  };
}

/** Reads a session's `listSuggestionModels` answer; throws when it is not an object at all. */
export function parseModelList(result: unknown): ModelList {
  if (!isObject(result)) {
    const got = kindOf(result);
    throw new Error(`listSuggestionModels answer: expected an object with "models", got ${got}`);
  }
  const models = Array.isArray(result.models)
    ? result.models.map(parseModel).filter((model): model is SuggestionModel => model !== null)
    : [];
  return {
    cliOverride: nonEmptyString(result.cliOverride),
    currentModel: nonEmptyString(result.currentModel),
    models,
  };
}

/** The person's choice for this editor, else the global one. */
export function suggestionModelChoice(settings: PatchbaySettings, editorId: string | null): string {
  return (editorId !== null ? settings.suggestionModelPerEditor[editorId] : undefined) ?? settings.suggestionModel;
}

/** The settings patch that records a choice globally or for one editor. */
export function suggestionModelPatch(
  settings: PatchbaySettings,
  choice: string,
  editorId?: string,
): Partial<PatchbaySettings> {
  if (editorId === undefined) return { suggestionModel: choice };
  return { suggestionModelPerEditor: { ...settings.suggestionModelPerEditor, [editorId]: choice } };
}

/**
 * The model to put into a relayed `getSuggestions`: `editor` passes the editor's own request
 * through, `session` uses the session's current model, anything else is a `provider/id`.
 * undefined = leave the request as the editor sent it.
 */
export function modelToInject(
  choice: string,
  session: Pick<SessionModels, 'currentModel'> | undefined,
  requested: string | undefined,
): string | undefined {
  if (choice === 'editor') return requested;
  if (choice === 'session') return session?.currentModel ?? undefined;
  return choice;
}

/** `params` with `model` set; the input is never changed. Non-object params are left alone. */
export function injectModel(params: unknown, model: string | undefined): unknown {
  if (model === undefined) return params;
  if (params === undefined || params === null) return { model };
  if (!isObject(params)) return params;
  return { ...params, model };
}

/** Shown wherever the choice is shown, when the session will ignore it. */
export function cliOverrideWarning(session: Pick<SessionModels, 'cliOverride'> | undefined): string | null {
  if (!session?.cliOverride) return null;
  return `the session has a CLI override (${session.cliOverride}); it takes precedence over the chosen suggestion model`;
}

export interface SuggestionCandidate {
  sessionId: string;
  /** Session key, `kind:cwd`. */
  key: string;
  lastActiveAt: number;
}

function mostRecent(candidates: readonly SuggestionCandidate[]): SuggestionCandidate | undefined {
  return candidates.reduce<SuggestionCandidate | undefined>(
    (best, candidate) => (best === undefined || candidate.lastActiveAt > best.lastActiveAt ? candidate : best),
    undefined,
  );
}

/**
 * Which bound session serves an editor's suggestions: the one the person picked for this
 * editor when it is among the candidates, else the most recently active. null = none bound.
 */
export function chooseSuggestionSession(
  editorId: string,
  candidates: readonly SuggestionCandidate[],
  settings: Pick<PatchbaySettings, 'suggestionSessionPerEditor'>,
): string | null {
  const picked = settings.suggestionSessionPerEditor[editorId];
  const pickedCandidates = picked === undefined ? [] : candidates.filter((c) => c.key === picked);
  return (mostRecent(pickedCandidates) ?? mostRecent(candidates))?.sessionId ?? null;
}
