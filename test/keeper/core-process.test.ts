// The core as the keeper forks it: with a floor under V8's old-generation limit (so big diffs'
// frames do not each cost full collections) and field-type tracking off (so each round of big
// diffs does not deoptimize the call path again) and a smaller interrupt budget (so the call path
// is optimized sooner), unless the user's own Node flags set them.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { CORE_OLD_SPACE_MB, CORE_V8_FLAGS, CoreProcess, coreExecArgv } from '../../src/keeper/core-process.ts';
import type { CoreMessage } from '../../src/keeper/protocol.ts';
import { tempDir, withTimeout } from '../peers/wait.ts';

const FLOOR = `--initial-old-space-size=${CORE_OLD_SPACE_MB}`;
const DEFAULTS = [FLOOR, ...CORE_V8_FLAGS];

test('the core gets the old-generation floor and its V8 flags ahead of the Node flags it inherits', () => {
  assert.deepEqual(CORE_V8_FLAGS, ['--no-track-field-types', '--interrupt-budget=16896']);
  assert.deepEqual(coreExecArgv(['--import', 'tsx']), [...DEFAULTS, '--import', 'tsx']);
  assert.deepEqual(coreExecArgv([]), DEFAULTS);
});

test('an old-generation size the user chose stays theirs, in the flags or in NODE_OPTIONS', () => {
  assert.deepEqual(coreExecArgv(['--initial-old-space-size=128']), [...CORE_V8_FLAGS, '--initial-old-space-size=128']);
  assert.deepEqual(coreExecArgv(['--initial_old_space_size=16']), [...CORE_V8_FLAGS, '--initial_old_space_size=16']);
  assert.deepEqual(coreExecArgv(['--import', 'tsx'], '--max-semi-space-size=4 --initial-old-space-size=32'), [...CORE_V8_FLAGS, '--import', 'tsx']);
  // Other heap flags are not that choice.
  assert.deepEqual(coreExecArgv(['--max-old-space-size=512'], '--max-semi-space-size=4'), [...DEFAULTS, '--max-old-space-size=512']);
});

test('field-type tracking the user turned on (or off) stays as they set it', () => {
  const budget = '--interrupt-budget=16896';
  assert.deepEqual(coreExecArgv(['--track-field-types']), [FLOOR, budget, '--track-field-types']);
  assert.deepEqual(coreExecArgv(['--track_field_types']), [FLOOR, budget, '--track_field_types']);
  assert.deepEqual(coreExecArgv([], '--no-track-field-types'), [FLOOR, budget]);
  // A flag that only starts the same is another flag.
  assert.deepEqual(coreExecArgv(['--track-field-types-x']), [...DEFAULTS, '--track-field-types-x']);
});

test('an interrupt budget the user set stays theirs', () => {
  assert.deepEqual(coreExecArgv(['--interrupt-budget=67584']), [FLOOR, '--no-track-field-types', '--interrupt-budget=67584']);
  assert.deepEqual(coreExecArgv([], '--interrupt_budget=1000'), [FLOOR, '--no-track-field-types']);
});

test('a forked core runs with the floor and the V8 flags: Node hands it to the process with the keeper’s own flags', async () => {
  const dir = await tempDir('core-flags');
  try {
    const script = join(dir.path, 'core.mjs');
    await writeFile(script, `process.send({ t: 'hello' }); process.send({ t: 'flags', execArgv: process.execArgv }, () => process.disconnect());\n`);
    let flags: string[] | null = null;
    const core = new CoreProcess({ script, execArgv: ['--no-warnings'], env: { ...process.env, NODE_OPTIONS: '' } }, (_core, msg: CoreMessage) => {
      const m = msg as unknown as { t: string; execArgv?: string[] };
      if (m.t === 'flags') flags = m.execArgv ?? null;
    }, () => {});
    await withTimeout(core.hello, 10_000, 'the core’s hello');
    await withTimeout(core.exited, 10_000, 'the core’s exit');
    assert.deepEqual(flags, [...DEFAULTS, '--no-warnings']);
  } finally {
    await dir.cleanup();
  }
});
