// The pure checks behind what an agent may ask Patchbay to hold (DESIGN §10).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetProblem, cutToBytes, diffPathProblem, MAX_PATH_BYTES, tabNameProblem } from '../../src/review/diff-limits.ts';

test('paths: absolute and outside /proc and /sys, without NUL, at most PATH_MAX bytes', () => {
  const table: [string, boolean, RegExp | null][] = [
    ['/home/a/src/main.ts', false, null],
    ['/processes/x.ts', false, null],
    ['', true, null],
    ['', false, /must be an absolute path \(got ""\)/],
    ['src/main.ts', false, /must be an absolute path \(got "src\/main.ts"\)/],
    ['./a', false, /must be an absolute path/],
    ['/w/a\0b', false, /contains a NUL character/],
    ['/proc/self/environ', false, /names a kernel file \("\/proc\/self\/environ"\); files in \/proc and \/sys are not reviewed/],
    ['/sys', false, /names a kernel file/],
    ['/home/../proc/1/mem', false, /names a kernel file/],
    [`/${'a'.repeat(MAX_PATH_BYTES)}`, false, /is longer than 4096 bytes/],
    [`/${'é'.repeat(2100)}`, false, /is longer than 4096 bytes/],
  ];
  for (const [path, optional, expected] of table) {
    const problem = diffPathProblem('new_file_path', path, { optional });
    if (expected === null) assert.equal(problem, null, path);
    else assert.match(problem ?? '', new RegExp(`^"new_file_path" ${expected.source}`), path.slice(0, 40));
  }
});

test('tab names: at most 1024 bytes', () => {
  assert.equal(tabNameProblem('✻ [Claude Code] a.ts (998b60) ⧉'), null);
  assert.equal(tabNameProblem('t'.repeat(1024)), null);
  assert.equal(tabNameProblem('t'.repeat(1025)), '"tab_name" is longer than 1024 bytes');
});

test('the budget: a diff that fits beside what waits is held, one byte over is refused saying how much', () => {
  const MiB = 1024 * 1024;
  assert.equal(budgetProblem(0, 256 * MiB, 256 * MiB), null);
  assert.equal(budgetProblem(100 * MiB, 156 * MiB, 256 * MiB), null);
  assert.equal(
    budgetProblem(200 * MiB, 56 * MiB + 1, 256 * MiB),
    '200.0 MiB of edits already wait for review and this one is 56.0 MiB, over the 256.0 MiB Patchbay holds at once; decide some and try again',
  );
});

test('a refused name is echoed cut to its cap, never in half a character', () => {
  assert.equal(cutToBytes('short', 10), 'short');
  assert.equal(cutToBytes('x'.repeat(20), 10), 'x'.repeat(10));
  assert.equal(cutToBytes('é'.repeat(20), 11), 'é'.repeat(5));
});
