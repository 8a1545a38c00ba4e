// Runs `patchbay <argv>` in this process against a home, collecting what it writes.
import { main } from '../../src/cli/main.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: readonly string[], where: { home: string; cwd: string; stdin?: string }): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env: { PATCHBAY_HOME: where.home },
    cwd: where.cwd,
    readStdin: async () => where.stdin ?? '',
  };
  const code = await main([...argv], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}
