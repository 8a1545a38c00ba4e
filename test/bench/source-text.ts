/**
 * Code-like text for the benchmark's big diff: what agents really propose. JSON.parse reads
 * plain ASCII on a fast path; real source has string literals with escapes and quotes, tabs,
 * backslashes (regexes, Windows paths), non-ASCII identifiers and comments, long and short
 * lines — each of which costs a JSON reader (and a JSON writer) more.
 *
 * Deterministic for a given seed, so both relays get the same bytes.
 */

/** Lines of TypeScript/Python-ish source; `{n}` is replaced by a running number. */
const LINES = [
  'export function parseRecord{n}(input: string): Record<string, unknown> {',
  '\tconst fields = input.split("\\t").map((f) => f.trim());',
  "\tif (!/^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$/i.test(fields[0] ?? '')) throw new Error(`bad address on line {n}: \"${fields[0]}\"`);",
  '\treturn { name: fields[1], path: "C:\\\\Users\\\\zoë\\\\données\\\\{n}.csv", note: \'it\\\'s "quoted"\' };',
  '}',
  '',
  '// Größe prüfen: die Datei darf nicht leer sein — sonst schlägt der Import fehl. ✓',
  'def größe_{n}(pfad: str) -> int:',
  '\t\t"""Liefert die Länge in Bytes; wirft bei fehlender Datei."""',
  "\t\treturn len(open(pfad, 'rb').read())  # naïve, but fine for {n} files",
  '\tconst message = "line one\\nline two\\n\\ttabbed \\"three\\"\\r\\n";',
  '\tconsole.log(`résumé #{n}: ${JSON.stringify({ ключ: "значение", 数据: [1, 2, 3], emoji: "🚀" })}`);',
  '\t\t\tcase 0x{n}: return "\\u00e9\\u00e8" + \'\\\\\' + "\\x41";',
  '    let total{n} = items.filter((i) => i.price > 0 && i.name !== "").reduce((sum, i) => sum + i.price * i.qty, 0); // sum of every item that has a price, in cents',
  '\t}',
];

/** About `bytes` bytes of UTF-8 (never more): whole lines, cut at a line end. */
export function sourceText(bytes: number, seed: string): string {
  const out: string[] = [`// ${seed}: generated source for the benchmark — ${bytes} bytes`];
  let size = Buffer.byteLength(out[0]!) + 1;
  for (let n = 0; ; n++) {
    const line = LINES[n % LINES.length]!.replaceAll('{n}', String(n));
    const lineBytes = Buffer.byteLength(line) + 1;
    if (size + lineBytes > bytes) break;
    out.push(line);
    size += lineBytes;
  }
  return `${out.join('\n')}\n`;
}
