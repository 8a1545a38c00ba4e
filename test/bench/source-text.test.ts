import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sourceText } from './source-text.ts';

test('the benchmark proposal reads like source code: escapes, quotes, tabs and non-ASCII, within its size', () => {
  const text = sourceText(256 * 1024, 'proposed');
  const bytes = Buffer.byteLength(text);
  assert.ok(bytes <= 256 * 1024 && bytes > 255 * 1024, `${bytes} bytes`);
  for (const [what, pattern] of [
    ['a double quote', /"/],
    ['a backslash', /\\/],
    ['a tab', /\t/],
    ['an escaped newline in a literal', /\\n/],
    ['non-ASCII', /[^\x00-\x7f]/],
    ['a line over 120 characters', /^.{121,}$/m],
    ['an empty line', /\n\n/],
  ] as const) {
    assert.match(text, pattern, `has ${what}`);
  }
  // JSON must escape much of it: that is what makes it costlier to carry than plain ASCII.
  assert.ok(JSON.stringify(text).length > text.length * 1.05);
  assert.equal(sourceText(4096, 'a'), sourceText(4096, 'a'), 'the same bytes for both relays');
});
