// Colour for people at a terminal, never in a pipe or a file. As in Node itself, FORCE_COLOR
// wins over NO_COLOR (https://no-color.org), which wins over the terminal check.
import type { Output } from './command.ts';

export function colorWanted(out: Output, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return out.isTTY === true && env.TERM !== 'dumb';
}

const SGR = { bold: '\x1b[1m', red: '\x1b[31m', green: '\x1b[32m', cyan: '\x1b[36m', dim: '\x1b[2m', reset: '\x1b[0m' };

function lineStyle(line: string): string | null {
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return SGR.bold;
  if (line.startsWith('@@')) return SGR.cyan;
  if (line.startsWith('+')) return SGR.green;
  if (line.startsWith('-')) return SGR.red;
  if (line.startsWith('\\')) return SGR.dim; // "\ No newline at end of file"
  return null;
}

/** A unified diff with its headers bold, hunks cyan, additions green and removals red. */
export function colorDiff(patch: string): string {
  return patch
    .split('\n')
    .map((line) => {
      const style = lineStyle(line);
      return style === null ? line : `${style}${line}${SGR.reset}`;
    })
    .join('\n');
}
