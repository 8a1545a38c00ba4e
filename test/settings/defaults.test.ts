import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../../src/api/types.ts';
import {
  DEFAULT_SETTINGS,
  defaultSettings,
  isModelChoice,
  parseStoredSettings,
  validateSettingsPatch,
} from '../../src/settings/defaults.ts';

const MiB = 1024 * 1024;

test('a fresh install has the documented defaults', () => {
  assert.deepEqual(DEFAULT_SETTINGS, {
    takeover: true,
    claude: true,
    reviewFolders: [],
    reviewMode: 'before',
    reviewModePerFolder: {},
    diagnosticsDeadlineMs: 1500,
    maxFrameBytes: 64 * MiB,
    maxPendingPerSession: 64,
    reviewRoute: 'editor-and-patchbay',
    suggestionModel: 'editor',
    suggestionModelPerEditor: {},
    suggestionSessionPerEditor: {},
    launchAtLogin: false,
    allowPiExtensions: false,
    trustedLockDirs: [],
    piCommand: '',
    remotes: [],
  });
});

test('a remote that would make ssh read an option, or maps a relative dir, is refused naming the field', () => {
  const remote = { name: 'devbox', destination: 'me@devbox', maps: [{ remote: '/home/me/p', local: '/Users/me/p' }] };
  assert.deepEqual(validateSettingsPatch({ remotes: [remote] }).remotes, [remote]);
  assert.throws(() => validateSettingsPatch({ remotes: [{ ...remote, destination: '-oProxyCommand=sh' }] }), /"remotes\[0\]\.destination" the ssh destination "-oProxyCommand=sh" must not start with "-"/);
  assert.throws(() => validateSettingsPatch({ remotes: [{ ...remote, maps: [{ remote: 'p', local: '/x' }] }] }), /"remotes\[0\]\.maps\[0\]".*must be an absolute path/);
  assert.throws(() => validateSettingsPatch({ remotes: [{ ...remote, maps: [] }] }), /at least one/);
  assert.throws(() => validateSettingsPatch({ remotes: [remote, remote] }), /must not name a remote twice/);
  assert.throws(() => validateSettingsPatch({ remotes: [{ ...remote, name: 'a b' }] }), /"remotes\[0\]\.name" must be a name/);
});

test('changing a copy of the defaults leaves the defaults alone', () => {
  const copy = defaultSettings();
  copy.reviewFolders.push('/x');
  copy.suggestionModelPerEditor.e = 'editor';
  assert.deepEqual(DEFAULT_SETTINGS.reviewFolders, []);
  assert.deepEqual(DEFAULT_SETTINGS.suggestionModelPerEditor, {});
});

const accepted: [string, unknown][] = [
  ['empty patch', {}],
  ['booleans', { takeover: false, claude: false, launchAtLogin: true, allowPiExtensions: true }],
  ['absolute review folders', { reviewFolders: ['/home/a/proj', '/tmp'] }],
  ['deadline at the low end', { diagnosticsDeadlineMs: 50 }],
  ['deadline at the high end', { diagnosticsDeadlineMs: 60_000 }],
  ['frame cap 1 MiB', { maxFrameBytes: MiB }],
  ['frame cap 1 GiB', { maxFrameBytes: 1024 * MiB }],
  ['pending limit', { maxPendingPerSession: 1 }],
  ['patchbay-only route', { reviewRoute: 'patchbay-only' }],
  ['model "editor"', { suggestionModel: 'editor' }],
  ['model "session"', { suggestionModel: 'session' }],
  ['model provider/id', { suggestionModel: 'anthropic/claude-haiku-4-5' }],
  ['model id with slashes', { suggestionModel: 'openrouter/meta/llama-3' }],
  ['per-editor models', { suggestionModelPerEditor: { 'nvim:/p': 'session', 'code:/q': 'openai/gpt-5' } }],
  ['per-editor sessions', { suggestionSessionPerEditor: { 'nvim:/p': 'pi:/home/a/proj' } }],
  ['trusted lock dirs', { trustedLockDirs: ['/srv/shared/ide'] }],
  ['no pi command (the environment or PATH decides)', { piCommand: '' }],
  ['a pi command path with spaces', { piCommand: '/opt/my tools/pi' }],
  ['a pi command as a JSON array', { piCommand: '["/opt/node22/bin/node","/opt/pi/cli.js"]' }],
];

for (const [name, patch] of accepted) {
  test(`settings accept ${name}`, () => {
    assert.deepEqual(validateSettingsPatch(patch), patch);
  });
}

// [name, patch, words the message must contain]
const refused: [string, unknown, string[]][] = [
  ['a patch that is not an object', [1], ['must be an object', 'a list']],
  ['null as a patch', null, ['must be an object', 'null']],
  ['an unknown setting', { takeovr: true }, ['unknown setting "takeovr"']],
  ['a string for a boolean', { takeover: 'yes' }, ['"takeover"', 'true or false', '"yes"']],
  ['a relative review folder', { reviewFolders: ['/ok', 'proj'] }, ['"reviewFolders[1]"', 'absolute path', '"proj"']],
  ['review folders that are not a list', { reviewFolders: '/a' }, ['"reviewFolders"', 'list']],
  ['a relative trusted lock dir', { trustedLockDirs: ['ide'] }, ['"trustedLockDirs[0]"', 'absolute path', '"ide"']],
  ['a deadline under 50 ms', { diagnosticsDeadlineMs: 49 }, ['"diagnosticsDeadlineMs"', '50 to 60000', '49']],
  ['a deadline over a minute', { diagnosticsDeadlineMs: 60_001 }, ['"diagnosticsDeadlineMs"', '60001']],
  ['a fractional deadline', { diagnosticsDeadlineMs: 100.5 }, ['"diagnosticsDeadlineMs"', 'whole number']],
  ['a frame cap under 1 MiB', { maxFrameBytes: MiB - 1 }, ['"maxFrameBytes"', '1 MiB']],
  ['a frame cap over 1 GiB', { maxFrameBytes: 1024 * MiB + 1 }, ['"maxFrameBytes"', '1 GiB']],
  ['a pending limit of 0', { maxPendingPerSession: 0 }, ['"maxPendingPerSession"']],
  ['an unknown route', { reviewRoute: 'editor-only' }, ['"reviewRoute"', 'patchbay-only', '"editor-only"']],
  ['a bare model id', { suggestionModel: 'gpt-5' }, ['"suggestionModel"', 'provider/id', '"gpt-5"']],
  ['a model with an empty provider', { suggestionModel: '/gpt-5' }, ['"suggestionModel"']],
  ['a model with spaces', { suggestionModel: 'openai/gpt 5' }, ['"suggestionModel"']],
  ['a pi command array that does not parse', { piCommand: '["/usr/bin/node", ' }, ['"piCommand"', 'JSON array']],
  ['a pi command array with an empty part', { piCommand: '["node",""]' }, ['"piCommand"', 'JSON array']],
  ['a pi command of two lines', { piCommand: 'pi\nrm -rf' }, ['"piCommand"', 'one line']],
  ['a bad per-editor model', { suggestionModelPerEditor: { e: 'nope' } }, ['"suggestionModelPerEditor.e"', '"nope"']],
  ['an empty editor id', { suggestionModelPerEditor: { '': 'editor' } }, ['invalid key ""', 'must not be empty']],
  ['a per-editor session that is not a key', { suggestionSessionPerEditor: { e: '/home/a' } }, ['"suggestionSessionPerEditor.e"', 'kind:cwd']],
];

for (const [name, patch, words] of refused) {
  test(`settings refuse ${name}, saying which field and why`, () => {
    assert.throws(
      () => validateSettingsPatch(patch),
      (error: unknown) => {
        assert.ok(error instanceof HubError);
        assert.equal(error.code, 'invalid');
        for (const word of words) assert.ok(error.message.includes(word), `"${error.message}" lacks ${word}`);
        return true;
      },
    );
  });
}

test('several bad fields are all named in one message', () => {
  assert.throws(() => validateSettingsPatch({ takeover: 1, maxPendingPerSession: -1 }), (error: Error) => {
    assert.match(error.message, /"takeover".*"maxPendingPerSession"/);
    return true;
  });
});

test('model choices: editor, session or provider/id', () => {
  const table: [string, boolean][] = [
    ['editor', true],
    ['session', true],
    ['openai/gpt-5', true],
    ['openrouter/a/b', true],
    ['Editor', false],
    ['gpt-5', false],
    ['openai/', false],
    ['/gpt', false],
    ['', false],
  ];
  for (const [choice, ok] of table) assert.equal(isModelChoice(choice), ok, choice);
});

test('a bad stored value falls back to its default with a warning; good ones are kept', () => {
  const { settings, warnings } = parseStoredSettings(
    { takeover: false, diagnosticsDeadlineMs: 5, reviewFolders: ['rel'], newerSetting: 1 },
    '/h/config.json',
  );
  assert.equal(settings.takeover, false);
  assert.equal(settings.diagnosticsDeadlineMs, 1500);
  assert.deepEqual(settings.reviewFolders, []);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /^\/h\/config\.json: "settings\.reviewFolders\[0\]" must be an absolute path .*using the default \[\]/);
  assert.match(warnings[1]!, /"settings\.diagnosticsDeadlineMs".*\(got 5\); using the default 1500/);
});

test('stored settings that are not an object give the defaults and a warning', () => {
  const { settings, warnings } = parseStoredSettings('oops', '/h/config.json');
  assert.deepEqual(settings, DEFAULT_SETTINGS);
  assert.deepEqual(warnings, ['/h/config.json: "settings" must be an object (got string); using the defaults']);
});
