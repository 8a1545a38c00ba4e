// JSON as Neovim writes it (vim.json / vim.fn.json_encode go through lua-cjson, in 0.7.2 and
// 0.10.4 alike): every number with 14 significant digits, C's `%.14g`. So 7.000000000000001
// comes back as 7, 100000000000000 as 1e+14, 123456789012346 as 1.2345678901235e+14 (exact
// ties aside: C rounds them to even, JavaScript up). An editor written in Lua answers a request
// under the id its encoder wrote, not the one it got.
// pi-ide.nvim and claudecode.nvim both do; the VS Code extension (JavaScript) keeps ids.

/** `%.14g` of a finite number, as lua-cjson prints it. */
export function luaNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`lua-cjson: cannot serialise ${n}`);
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  // %g takes the exponent of the %e form at the same precision (after its rounding).
  const [mantissa, exp] = n.toExponential(13).split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 14) return `${trimZeros(mantissa)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return trimZeros(n.toFixed(13 - e));
}

/** %g drops trailing zeros after the point, and the point itself when nothing is left. */
function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** JSON.stringify with every number written as lua-cjson writes it. */
export function luaJson(value: unknown): string {
  if (typeof value === 'number') return luaNumber(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return luaJson((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : luaJson(item))).join(',')}]`;
  const fields = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== 'function');
  return `{${fields.map(([key, item]) => `${JSON.stringify(key)}:${luaJson(item)}`).join(',')}}`;
}
