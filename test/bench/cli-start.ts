/**
 * How fast the `patchbay` command starts, against `node -e 0` on the same machine in the same
 * run (scripts and prompts call `patchbay status` often). Each round runs every command once,
 * in turn, so load on the machine falls on all of them alike; the table gives each one's median
 * wall time and CPU (user + system, from GNU time), their spread, and the ratio to node's.
 *
 *   node --import tsx test/bench/cli-start.ts [--runs 25] [--root DIR] [--json]
 *
 * `--root` is the install to measure (default: this checkout): a fresh `npm ci` of the project,
 * say. `patchbay` is run as `npm link` installs it: `node <root>/src/cli/bin.mjs`. status runs
 * twice: with no daemon (it reads what a stopped Patchbay left on disk) and with one running.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tempDir } from '../peers/wait.ts';
import { median } from './report.ts';

interface Sample {
  wallMs: number;
  cpuMs: number;
}

const { values } = parseArgs({ options: { runs: { type: 'string' }, root: { type: 'string' }, json: { type: 'boolean' } } });
const runs = Number(values.runs ?? 25);
const root = resolve(values.root ?? new URL('../..', import.meta.url).pathname);
const bin = join(root, 'src', 'cli', 'bin.mjs');

/** One run of `args` under GNU time: wall time around it here, its CPU as time counted it. */
function once(args: string[], env: NodeJS.ProcessEnv, timesFile: string, exitCode = 0): Sample {
  const began = process.hrtime.bigint();
  const run = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timesFile, process.execPath, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const wallMs = Number(process.hrtime.bigint() - began) / 1e6;
  if (run.status !== exitCode) throw new Error(`${args.join(' ')} exited with ${run.status}: ${run.stderr.toString()}`);
  const [user, system] = readFileSync(timesFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wallMs, cpuMs: ((user ?? 0) + (system ?? 0)) * 1000 };
}

async function main(): Promise<void> {
  const dir = await tempDir('cli-start');
  const home = join(dir.path, 'home');
  const env = { ...process.env, PATCHBAY_HOME: home, HOME: join(dir.path, 'user'), PI_IDE_LOCK_DIR: join(dir.path, 'pi-ide'), CLAUDE_CONFIG_DIR: join(dir.path, 'claude'), PATCHBAY_SCAN_PROCESSES: '0' };
  const times = join(dir.path, 'times');
  // status with no daemon says so, and what a stopped one left, with exit code 1.
  const commands: { name: string; args: string[]; daemon: boolean; exitCode?: number }[] = [
    { name: 'node -e 0', args: ['-e', '0'], daemon: false },
    { name: 'patchbay --help', args: [bin, '--help'], daemon: false },
    { name: 'patchbay status --json (no daemon)', args: [bin, 'status', '--json'], daemon: false, exitCode: 1 },
    { name: 'patchbay status --json (daemon running)', args: [bin, 'status', '--json'], daemon: true },
  ];
  const samples = new Map(commands.map((c) => [c.name, [] as Sample[]]));
  const load = loadavg()[0]!;
  try {
    // The no-daemon rounds first, then a daemon and the rest (a daemon's start would land on one command only).
    for (const withDaemon of [false, true]) {
      const daemon = withDaemon ? spawn(process.execPath, [bin, 'daemon'], { env, stdio: ['ignore', 'pipe', 'ignore'] }) : null;
      if (daemon) await new Promise<void>((ready) => daemon.stdout!.once('data', () => ready()));
      try {
        const these = commands.filter((c) => c.daemon === withDaemon || c.name === 'node -e 0');
        for (const c of these) once(c.args, env, times, c.exitCode); // warm the file cache
        for (let i = 0; i < runs; i++) for (const c of these) samples.get(c.name)!.push(once(c.args, env, times, c.exitCode));
      } finally {
        if (daemon) {
          const exited = new Promise((done) => daemon.once('exit', done));
          daemon.kill('SIGTERM');
          await exited;
        }
      }
    }
  } finally {
    await dir.cleanup();
  }
  const nodeWall = median(samples.get('node -e 0')!.map((s) => s.wallMs));
  const rows = commands.map((c) => {
    const list = samples.get(c.name)!;
    const wall = list.map((s) => s.wallMs);
    const cpu = list.map((s) => s.cpuMs);
    return { command: c.name, runs: list.length, wallMedianMs: median(wall), wallMinMs: Math.min(...wall), wallMaxMs: Math.max(...wall), cpuMedianMs: median(cpu), ratio: median(wall) / nodeWall };
  });
  const header = `${runs} rounds on ${cpus().length} cores, ${process.version}, load ${load.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (${root})`;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ header, rows }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${header}\n`);
  for (const r of rows) {
    process.stdout.write(
      `${r.command.padEnd(40)} ${r.wallMedianMs.toFixed(0).padStart(4)} ms (${r.wallMinMs.toFixed(0)}–${r.wallMaxMs.toFixed(0)})  ` +
        `cpu ${r.cpuMedianMs.toFixed(0).padStart(4)} ms  ${r.ratio.toFixed(2)}× node\n`,
    );
  }
}

await main();
