import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PatchbaySettings } from '../../src/api/types.ts';
import { defaultSettings } from '../../src/settings/defaults.ts';
import {
  chooseSuggestionSession,
  cliOverrideWarning,
  injectModel,
  modelToInject,
  parseModelList,
  suggestionModelChoice,
  suggestionModelPatch,
} from '../../src/suggestions/models.ts';

const haiku = { provider: 'anthropic', id: 'claude-haiku-4-5', name: 'Claude Haiku 4.5', model: 'anthropic/claude-haiku-4-5' };

test('a full model list is read as pi sends it', () => {
  assert.deepEqual(parseModelList({ cliOverride: '--model x', currentModel: 'openai/gpt-5', models: [haiku] }), {
    cliOverride: '--model x',
    currentModel: 'openai/gpt-5',
    models: [haiku],
  });
});

// [name, answer, expected]
const lists: [string, unknown, ReturnType<typeof parseModelList>][] = [
  ['an empty object', {}, { cliOverride: null, currentModel: null, models: [] }],
  ['an empty CLI override means none', { cliOverride: '', models: [] }, { cliOverride: null, currentModel: null, models: [] }],
  ['a models field that is not a list', { models: { a: 1 } }, { cliOverride: null, currentModel: null, models: [] }],
  [
    'entries without provider or id are dropped',
    { models: [haiku, { id: 'x' }, { provider: 'p' }, 'openai/gpt-5', null, { provider: '', id: 'y' }] },
    { cliOverride: null, currentModel: null, models: [haiku] },
  ],
  [
    'a missing name and model are filled in',
    { models: [{ provider: 'openai', id: 'gpt-5' }] },
    { cliOverride: null, currentModel: null, models: [{ provider: 'openai', id: 'gpt-5', name: 'gpt-5', model: 'openai/gpt-5' }] },
  ],
  ['non-string fields count as missing', { cliOverride: 3, currentModel: false }, { cliOverride: null, currentModel: null, models: [] }],
];

for (const [name, answer, expected] of lists) {
  test(`model list: ${name}`, () => {
    assert.deepEqual(parseModelList(answer), expected);
  });
}

test('a model list answer that is not an object is an error saying what came', () => {
  assert.throws(() => parseModelList(null), /listSuggestionModels answer: .*got null/);
  assert.throws(() => parseModelList([haiku]), /got a list/);
  assert.throws(() => parseModelList('models'), /got string/);
});

function settingsWith(patch: Partial<PatchbaySettings>): PatchbaySettings {
  return { ...defaultSettings(), ...patch };
}

test('an editor with its own model choice uses it; others use the global choice', () => {
  const settings = settingsWith({ suggestionModel: 'session', suggestionModelPerEditor: { 'nvim:/a': 'openai/gpt-5' } });
  assert.equal(suggestionModelChoice(settings, 'nvim:/a'), 'openai/gpt-5');
  assert.equal(suggestionModelChoice(settings, 'code:/b'), 'session');
  assert.equal(suggestionModelChoice(settings, null), 'session');
});

test('choosing a model globally or for one editor yields the matching settings patch', () => {
  const settings = settingsWith({ suggestionModelPerEditor: { 'nvim:/a': 'session' } });
  assert.deepEqual(suggestionModelPatch(settings, 'openai/gpt-5'), { suggestionModel: 'openai/gpt-5' });
  assert.deepEqual(suggestionModelPatch(settings, 'editor', 'code:/b'), {
    suggestionModelPerEditor: { 'nvim:/a': 'session', 'code:/b': 'editor' },
  });
  assert.deepEqual(settings.suggestionModelPerEditor, { 'nvim:/a': 'session' }, 'the settings are not changed');
});

// [name, choice, session's current model, editor's request, injected]
const injections: [string, string, string | null | undefined, string | undefined, string | undefined][] = [
  ["editor: the editor's own choice passes through", 'editor', 'openai/gpt-5', 'anthropic/claude-haiku-4-5', 'anthropic/claude-haiku-4-5'],
  ['editor: no request, nothing injected', 'editor', 'openai/gpt-5', undefined, undefined],
  ["session: the session's current model", 'session', 'openai/gpt-5', 'anthropic/claude-haiku-4-5', 'openai/gpt-5'],
  ['session: no current model, the request stays as sent', 'session', null, 'anthropic/x', undefined],
  ['session: models not fetched yet', 'session', undefined, 'anthropic/x', undefined],
  ['provider/id: that model, whatever the editor asked', 'google/gemini-3-flash', 'openai/gpt-5', 'anthropic/x', 'google/gemini-3-flash'],
];

for (const [name, choice, currentModel, requested, expected] of injections) {
  test(`model to inject — ${name}`, () => {
    const session = currentModel === undefined ? undefined : { currentModel };
    assert.equal(modelToInject(choice, session, requested), expected);
  });
}

test('injecting a model sets it in a copy of the request', () => {
  const params = { cursorBefore: 'let x = ', cursorAfter: ';', suggestionCount: 3, model: 'a/b' };
  const frozen = structuredClone(params);
  const injected = injectModel(params, 'openai/gpt-5');
  assert.deepEqual(injected, { ...frozen, model: 'openai/gpt-5' });
  assert.deepEqual(params, frozen, 'the input is not changed');
  assert.notEqual(injected, params);
});

test('injecting no model leaves the request as it was sent', () => {
  const params = { cursorBefore: 'x', model: 'a/b' };
  assert.equal(injectModel(params, undefined), params);
});

test('injecting into missing params makes params; into a list leaves it alone', () => {
  assert.deepEqual(injectModel(undefined, 'a/b'), { model: 'a/b' });
  assert.deepEqual(injectModel(null, 'a/b'), { model: 'a/b' });
  const list = ['x'];
  assert.equal(injectModel(list, 'a/b'), list);
});

test('a CLI override is called out; no override, no warning', () => {
  assert.equal(
    cliOverrideWarning({ cliOverride: 'anthropic/claude-opus' }),
    'the session has a CLI override (anthropic/claude-opus); it takes precedence over the chosen suggestion model',
  );
  assert.equal(cliOverrideWarning({ cliOverride: null }), null);
  assert.equal(cliOverrideWarning(undefined), null);
});

const older = { sessionId: 's1', key: 'pi:/home/a/proj', lastActiveAt: 1000 };
const newer = { sessionId: 's2', key: 'pi:/home/a/other', lastActiveAt: 2000 };
const pickedTwiceOld = { sessionId: 's3', key: 'pi:/home/a/proj', lastActiveAt: 500 };

// [name, candidates, the person's pick for editor "e", expected session]
const choices: [string, (typeof older)[], string | undefined, string | null][] = [
  ['no bound session', [], undefined, null],
  ['no bound session, even with a pick', [], 'pi:/home/a/proj', null],
  ['one bound session', [older], undefined, 's1'],
  ['several: the most recently active', [older, newer], undefined, 's2'],
  ['several: order does not matter', [newer, older], undefined, 's2'],
  ['the picked session wins over a more recent one', [older, newer], 'pi:/home/a/proj', 's1'],
  ['two sessions under the picked key: the more recent of them', [pickedTwiceOld, newer, older], 'pi:/home/a/proj', 's1'],
  ['the picked session is not bound: the most recent', [older, newer], 'claude:/elsewhere', 's2'],
];

for (const [name, candidates, pick, expected] of choices) {
  test(`suggestion session — ${name}`, () => {
    const settings = settingsWith({ suggestionSessionPerEditor: pick ? { e: pick } : { other: 'pi:/home/a/proj' } });
    assert.equal(chooseSuggestionSession('e', candidates, settings), expected);
  });
}
