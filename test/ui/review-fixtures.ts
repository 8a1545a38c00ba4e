// A TypeScript file and an agent's proposal for it with three separate changes, and what each
// combination of per-change choices must leave on disk.

export const DISK = `import { readFile } from 'node:fs/promises';

export interface Item {
  name: string;
  count: number;
}

// Loads the inventory from disk.
export async function load(path: string): Promise<Item[]> {
  const text = await readFile(path, 'utf8');
  return JSON.parse(text) as Item[];
}

export function total(items: Item[]): number {
  let sum = 0;
  for (const item of items) sum += item.count;
  return sum;
}

export function names(items: Item[]): string[] {
  return items.map((i) => i.name);
}

export function empty(items: Item[]): boolean {
  return items.length === 0;
}
`;

const CHANGE_1: [string, string] = ["import { readFile } from 'node:fs/promises';", "import { readFile, writeFile } from 'node:fs/promises';"];
const CHANGE_2: [string, string] = [
  '  let sum = 0;\n  for (const item of items) sum += item.count;\n  return sum;',
  '  return items.reduce((sum, item) => sum + item.count, 0);',
];
const CHANGE_3: [string, string] = [
  '  return items.length === 0;\n}\n',
  '  return items.length === 0;\n}\n\nexport async function save(path: string, items: Item[]): Promise<void> {\n  await writeFile(path, JSON.stringify(items, null, 2));\n}\n',
];

/** The disk text with the given changes (1, 2, 3) applied. */
export function withChanges(...which: (1 | 2 | 3)[]): string {
  let text = DISK;
  for (const n of which) {
    const [from, to] = [CHANGE_1, CHANGE_2, CHANGE_3][n - 1]!;
    text = text.replace(from, to);
  }
  return text;
}

export const PROPOSAL = withChanges(1, 2, 3);

/**
 * A 3000-line source file and a proposal that changes 41 single lines spread through it (the
 * size at which a character diff gives up and paints whole stretches as deleted and re-added).
 */
export const BIG_LINES = 3000;
export const BIG_CHANGED_LINES = Array.from({ length: 41 }, (_, i) => 30 + i * 72);

function bigLine(n: number): string {
  switch (n % 6) {
    case 0:
      return `export function step${n}(input: string): string {`;
    case 1:
      return `\tconst label = "item ${n}: \\"quoted\\" ünïcödé";`;
    case 2:
      return `\tif (input.length > ${n}) return input.slice(0, ${n});`;
    case 3:
      return `\treturn \`\${label} \${input}\`.replace(/\\s+/g, ' ');`;
    case 4:
      return '}';
    default:
      return '';
  }
}

export const BIG_DISK = `${Array.from({ length: BIG_LINES }, (_, i) => bigLine(i)).join('\n')}\n`;

/** The big file with the given changes (1-based, of BIG_CHANGED_LINES) applied. */
export function bigWithChanges(which: readonly number[]): string {
  const lines = BIG_DISK.split('\n');
  for (const n of which) {
    const at = BIG_CHANGED_LINES[n - 1]!;
    lines[at] = `${lines[at]} // reviewed change ${n}`;
  }
  return lines.join('\n');
}

export const BIG_PROPOSAL = bigWithChanges(BIG_CHANGED_LINES.map((_, i) => i + 1));
