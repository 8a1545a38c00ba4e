import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionModels, Snapshot } from '../../src/api/types.ts';
import {
  addReviewFolder,
  cliOverrideWarnings,
  fromTriState,
  modelOptions,
  parseDeadline,
  projectFolders,
  toTriState,
} from '../../renderer/src/settings/settings-model.ts';

function models(sessionId: string, list: [string, string][], cliOverride: string | null = null): SessionModels {
  return {
    sessionId,
    cliOverride,
    currentModel: null,
    models: list.map(([provider, id]) => ({ provider, id, name: id.toUpperCase(), model: `${provider}/${id}` })),
    fetchedAt: 0,
    error: null,
  };
}

test('the model chooser offers the fixed choices, then each offered model once', () => {
  const options = modelOptions([models('s1', [['openai', 'gpt'], ['local', 'qwen']]), models('s2', [['openai', 'gpt']])], 'editor');
  assert.deepEqual(options.map((o) => o.value), ['editor', 'session', 'openai/gpt', 'local/qwen']);
  assert.equal(options[2]?.label, 'GPT (openai/gpt)');
});

test('a chosen model no session offers stays selectable, marked as such', () => {
  const options = modelOptions([], 'anthropic/opus');
  assert.deepEqual(options.at(-1), { value: 'anthropic/opus', label: 'anthropic/opus (not offered by any session now)' });
});

test('sessions started with a CLI model are warned about', () => {
  const snap = { sessions: [{ id: 's1', kind: 'pi', cwd: '/w/api', pid: 3 }] } as unknown as Snapshot;
  assert.deepEqual(cliOverrideWarnings([models('s1', [], 'openai/gpt'), models('s2', [])], snap), [
    'pi · api was started with model openai/gpt; that choice overrides the one made here.',
  ]);
});

test('project folders come from sessions, idle agents, editors and review folders, once each', () => {
  const snap = {
    sessions: [{ cwd: '/w/api' }, { cwd: null }],
    idleAgents: [{ cwd: '/w/tools' }],
    editors: [{ workspaceFolders: ['/w/api', '/w/web'] }],
    settings: { reviewFolders: ['/scratch'] },
  } as unknown as Snapshot;
  assert.deepEqual(projectFolders(snap), ['/scratch', '/w/api', '/w/tools', '/w/web']);
});

test('typed values are checked before they are sent', () => {
  assert.deepEqual(parseDeadline(' 1500 '), { ok: true, value: 1500 });
  assert.equal(parseDeadline('1.5').ok, false);
  assert.equal(parseDeadline('').ok, false);
  assert.equal(parseDeadline('10').ok, false);
  assert.deepEqual(addReviewFolder(['/a'], ' /b '), { ok: true, value: ['/a', '/b'] });
  assert.deepEqual(addReviewFolder(['/a'], 'relative/x'), { ok: false, error: 'relative/x is not an absolute path.' });
  assert.equal(addReviewFolder(['/a'], '/a').ok, false);
  assert.equal(addReviewFolder([], 'C:\\work').ok, true);
});

test('autoconnect reads as on, off, or not set', () => {
  for (const value of [true, false, null]) assert.equal(fromTriState(toTriState(value)), value);
});
