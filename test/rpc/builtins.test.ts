// The commands of pi's terminal UI that Patchbay runs with pi's RPC commands: what each text
// means, and that nothing of them reaches the model as text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forkPointFor, parseBuiltin, type BuiltinAction } from '../../src/rpc/builtins.ts';
import { resumeArgs, sessionDirArg } from '../../src/rpc/start-args.ts';

const CASES: [string, BuiltinAction][] = [
  ['/compact', { kind: 'compact' }],
  ['  /compact keep the API decisions  ', { kind: 'compact', instructions: 'keep the API decisions' }],
  ['/compact\nfirst line\nsecond', { kind: 'compact', instructions: 'first line\nsecond' }],
  ['/name Foo bar', { kind: 'name', name: 'Foo bar' }],
  ['/new', { kind: 'new' }],
  ['/fork write the tests', { kind: 'fork', at: 'write the tests' }],
  ['/clone', { kind: 'clone' }],
  ['/export', { kind: 'export' }],
  ['/export out/session.html', { kind: 'export', path: 'out/session.html' }],
  ['/model fake/fake-2', { kind: 'model', provider: 'fake', modelId: 'fake-2' }],
  ['/model openrouter/anthropic/claude', { kind: 'model', provider: 'openrouter', modelId: 'anthropic/claude' }],
  ['/thinking high', { kind: 'thinking', level: 'high' }],
  ['!ls -la', { kind: 'bash', command: 'ls -la', excludeFromContext: false }],
  ['!! git status', { kind: 'bash', command: 'git status', excludeFromContext: true }],
  ['hello there', { kind: 'prompt' }],
  ['/skill:review the diff', { kind: 'prompt' }],
  ['/ide', { kind: 'prompt' }],
  ['/unknownthing', { kind: 'prompt' }],
  ['see /compact in the docs', { kind: 'prompt' }],
  ['/path/to/file.ts is broken', { kind: 'prompt' }],
];

test('each of pi’s TUI commands becomes its RPC command; other text is a prompt', () => {
  for (const [text, action] of CASES) assert.deepEqual(parseBuiltin(text), action, JSON.stringify(text));
});

test('a command missing its argument, or one only pi’s terminal UI has, is refused with where to look instead', () => {
  const refused: [string, RegExp][] = [
    ['/name', /\/name needs the new name/],
    ['/fork', /\/fork needs the start of the earlier prompt/],
    ['/model fake', /provider\/id/],
    ['/thinking', /needs a level/],
    ['!', /needs a shell command/],
    ['!!  ', /needs a shell command/],
    ['/resume', /pi's terminal UI: past sessions are in the Sessions view/],
    ['/quit', /Stop button/],
    ['/tree', /\/fork/],
  ];
  for (const [text, why] of refused) {
    const action = parseBuiltin(text);
    assert.equal(action.kind, 'refused', text);
    assert.match((action as { reason: string }).reason, why, text);
  }
});

test('a command pi itself offers (an extension’s, a template) is pi’s, even with a TUI command’s name', () => {
  assert.deepEqual(parseBuiltin('/compact now', new Set(['compact'])), { kind: 'prompt' });
  assert.deepEqual(parseBuiltin('/resume', new Set(['resume'])), { kind: 'prompt' });
  assert.deepEqual(parseBuiltin('/name x', new Set(['other'])), { kind: 'name', name: 'x' });
});

test('/fork <text> picks the newest prompt starting with the text, else the newest containing it', () => {
  const points = [
    { entryId: 'a', text: 'Write the tests' },
    { entryId: 'b', text: 'Fix the parser' },
    { entryId: 'c', text: 'write the tests again, smaller' },
    { entryId: 'd', text: 'Please fix the PARSER bug' },
  ];
  assert.equal(forkPointFor(points, 'write the tests')?.entryId, 'c');
  assert.equal(forkPointFor(points, 'Fix the')?.entryId, 'b');
  assert.equal(forkPointFor(points, 'parser bug')?.entryId, 'd');
  assert.equal(forkPointFor(points, 'nothing like it'), null);
});

test('resuming keeps a session’s arguments but those that picked, named or modelled its session', () => {
  assert.deepEqual(resumeArgs(['--continue', '-e', 'x.ts', '--session', 'old.jsonl', '--thinking', 'high']), ['-e', 'x.ts', '--thinking', 'high']);
  assert.deepEqual(resumeArgs(['--session=old.jsonl', '-n', 'Foo', '--model', 'a/b', '--no-session', '--fork', 'f', '--session-id', 'i', '-r', '-c']), []);
  assert.deepEqual(resumeArgs(['--session-dir', '/s', '--models', 'a/b']), ['--session-dir', '/s', '--models', 'a/b']);
  assert.equal(sessionDirArg(['--x', '--session-dir', '/s']), '/s');
  assert.equal(sessionDirArg(['--session-dir=/t']), '/t');
  assert.equal(sessionDirArg(['--session', '/f.jsonl']), null);
});
