// The diff's colours as styles.css sets them, measured with the WCAG 2 contrast formula in the
// light and the dark scheme: text on every change background (syntax colours included) keeps
// AA for text (4.5:1); the change markers keep AA for non-text (3:1) against the editor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CSS = readFileSync(fileURLToPath(new URL('../../renderer/src/styles.css', import.meta.url)), 'utf8');

/** Custom properties with hex values in `:root` blocks: outside and inside the dark-scheme media query. */
function palettes(css: string): { light: Map<string, string>; dark: Map<string, string> } {
  const light = new Map<string, string>();
  const darkOnly = new Map<string, string>();
  const media = /@media \(prefers-color-scheme: dark\)\s*\{/g;
  let rest = css;
  for (let match = media.exec(css); match !== null; match = media.exec(css)) {
    // The media block runs to its matching brace.
    let depth = 1;
    let end = match.index + match[0].length;
    while (depth > 0 && end < css.length) {
      if (css[end] === '{') depth++;
      else if (css[end] === '}') depth--;
      end++;
    }
    const block = css.slice(match.index, end);
    for (const [, name, value] of block.matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})\b/gi)) darkOnly.set(name!, value!);
    rest = rest.replace(block, '');
  }
  for (const root of rest.matchAll(/:root\s*\{([^}]*)\}/g)) {
    for (const [, name, value] of root[1]!.matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})\b/gi)) light.set(name!, value!);
  }
  return { light, dark: new Map([...light, ...darkOnly]) };
}

function luminance(hex: string): number {
  const channel = (i: number): number => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const { light, dark } = palettes(CSS);
const BACKGROUNDS = ['--bg', '--diff-del-bg', '--diff-ins-bg', '--diff-del-word', '--diff-ins-word'];
const TEXT = ['--fg', ...[...light.keys()].filter((k) => k.startsWith('--tok-'))];
const MARKERS = ['--diff-del-mark', '--diff-ins-mark', '--accent'];

test('the contrast formula matches WCAG’s reference values', () => {
  assert.equal(contrast('#000000', '#ffffff').toFixed(2), '21.00');
  assert.equal(contrast('#777777', '#ffffff').toFixed(2), '4.48');
});

test('styles.css sets every diff colour for both schemes', () => {
  assert.ok(TEXT.length >= 8, `syntax colours found: ${TEXT.join(', ')}`);
  for (const name of [...BACKGROUNDS, ...TEXT, ...MARKERS]) {
    assert.ok(light.has(name), `${name} in the light scheme`);
    assert.notEqual(dark.get(name), undefined, `${name} in the dark scheme`);
  }
  for (const name of [...BACKGROUNDS.slice(1), ...TEXT.slice(1), ...MARKERS.slice(0, 2)]) {
    assert.notEqual(dark.get(name), light.get(name), `${name} has its own dark value`);
  }
});

for (const [scheme, palette] of [
  ['light', light],
  ['dark', dark],
] as const) {
  test(`${scheme}: code text keeps 4.5:1 on every change background`, (t) => {
    for (const bg of BACKGROUNDS) {
      for (const fg of TEXT) {
        const ratio = contrast(palette.get(fg)!, palette.get(bg)!);
        assert.ok(ratio >= 4.5, `${fg} ${palette.get(fg)} on ${bg} ${palette.get(bg)}: ${ratio.toFixed(2)}:1`);
      }
      const worst = Math.min(...TEXT.map((fg) => contrast(palette.get(fg)!, palette.get(bg)!)));
      t.diagnostic(`${bg} ${palette.get(bg)}: lowest text contrast ${worst.toFixed(2)}:1, against the editor ${contrast(palette.get(bg)!, palette.get('--bg')!).toFixed(2)}:1`);
    }
  });

  test(`${scheme}: change markers keep 3:1 against the editor background`, (t) => {
    for (const marker of MARKERS) {
      const ratio = contrast(palette.get(marker)!, palette.get('--bg')!);
      assert.ok(ratio >= 3, `${marker} ${palette.get(marker)}: ${ratio.toFixed(2)}:1`);
      t.diagnostic(`${marker} ${palette.get(marker)}: ${ratio.toFixed(2)}:1`);
    }
  });

  // Between two dark colours the eye needs a larger step than between two light ones (a dark
  // scheme at 1.27:1 read as no mark at all in the screenshots).
  test(`${scheme}: word-level marks stand apart from their changed line`, () => {
    const least = scheme === 'light' ? 1.2 : 1.35;
    for (const [word, line] of [
      ['--diff-del-word', '--diff-del-bg'],
      ['--diff-ins-word', '--diff-ins-bg'],
    ] as const) {
      const ratio = contrast(palette.get(word)!, palette.get(line)!);
      assert.ok(ratio >= least, `${word} on ${line}: ${ratio.toFixed(2)}:1, want ${least}:1`);
    }
  });

  test(`${scheme}: +/− counts, change states and pressed Accept / Reject stay readable on the change bars`, () => {
    for (const fg of ['--ok', '--danger', '--fg-soft']) {
      const ratio = contrast(palette.get(fg)!, palette.get('--bg-soft')!);
      assert.ok(ratio >= 4.5, `${fg} on --bg-soft: ${ratio.toFixed(2)}:1`);
    }
    for (const pressed of ['--ok', '--danger']) {
      const ratio = contrast(palette.get('--bg')!, palette.get(pressed)!);
      assert.ok(ratio >= 4.5, `--bg text on a pressed button's ${pressed}: ${ratio.toFixed(2)}:1`);
    }
  });
}
