// Review after through the real daemon and CLI: `patchbay review-mode --project P after`, an agent's
// edit written at once, `diffs --json` listing it applied with its changes, `diffs show`, `diffs
// undo --changes`, `diffs keep`, and a kill -9 of the daemon losing nothing that was applied.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DiffSummary } from '../../src/api/types.ts';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import { type TempDir } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, statusUntil, type Daemon, type Env } from './daemon-process.ts';

const BEFORE = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n';
const WRITTEN = 'ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nTEN\n';

describe('review after, with the real daemon and CLI', () => {
  let tmp: TempDir;
  let env: Env;
  let project: string;
  let daemon: Daemon | undefined;
  const peers: PeerProcess[] = [];

  before(async () => {
    ({ tmp, env, project } = await e2eFolder('e2e-after'));
  });
  after(async () => {
    await daemon?.stop('SIGKILL');
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });

  const listed = async (): Promise<{ diffs: DiffSummary[] }> => {
    const run = await cli(env, ['diffs', '--json']);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as { diffs: DiffSummary[] };
  };

  test('review-mode sets a folder to after; an edit there is written at once and listed applied with numbered changes', async () => {
    daemon = await startDaemon(env);
    const shown = await cli(env, ['review-mode', '--project', project]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /effective\s+before/);
    const set = await cli(env, ['review-mode', '--project', project, 'after']);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /effective\s+after/);

    const file = join(project, 'numbers.txt');
    await writeFile(file, BEFORE);
    const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
    peers.push(pi);
    await statusUntil(env, (s) => s.sessions.length === 1, 'the pi session');
    const outcome = (await pi.command({ cmd: 'write', path: file, contents: WRITTEN })) as { outcome: string };
    assert.equal(outcome.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), WRITTEN);

    const { diffs } = await listed();
    const edit = diffs.find((d) => d.path === file);
    assert.equal(edit?.status, 'applied');
    assert.deepEqual(edit?.changes, [
      { number: 1, oldStart: 1, oldLines: 1, newStart: 1, newLines: 1 },
      { number: 2, oldStart: 10, oldLines: 1, newStart: 10, newLines: 1 },
    ]);
    const show = await cli(env, ['diffs', 'show', edit!.id]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /@@ -1,4 \+1,4 @@ change 1 of 2/);
    assert.match(show.stdout, /@@ -7,4 \+7,4 @@ change 2 of 2/);
    assert.match(show.stderr, /applied at once/);

    // Later, by hand: a line between the two changes.
    await writeFile(file, WRITTEN.replace('five\n', 'five and a half\n'));
    const undo = await cli(env, ['diffs', 'undo', edit!.id, '--changes', '2']);
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, new RegExp(`partly undone \\(change 2\\) ${edit!.id}`));
    assert.equal(await readFile(file, 'utf8'), WRITTEN.replace('five\n', 'five and a half\n').replace('TEN\n', 'ten\n'));

    // The first change's line changed since: refused, naming it, nothing touched.
    await writeFile(file, 'ONE!\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n');
    const refused = await cli(env, ['diffs', 'undo', edit!.id]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /change 1 of 2 .*changed since/);
    assert.equal(await readFile(file, 'utf8'), 'ONE!\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n');

    const keep = await cli(env, ['diffs', 'keep', edit!.id]);
    assert.equal(keep.code, 0, keep.stderr);
    assert.match(keep.stdout, new RegExp(`^kept ${edit!.id}`));
    const json = JSON.parse((await cli(env, ['diffs', '--json'])).stdout) as { diffs: DiffSummary[]; history: { id: string; status: string; undone?: number[] }[] };
    assert.ok(!json.diffs.some((d) => d.id === edit!.id));
    const record = json.history.find((r) => r.id === edit!.id);
    assert.equal(record?.status, 'kept');
    assert.deepEqual(record?.undone, [2]);
  });

  test('an edit applied just before a kill -9 is still there to undo after the restart', async () => {
    const file = join(project, 'crash.txt');
    await writeFile(file, 'before\n');
    const pi = peers[0]!;
    const outcome = (await pi.command({ cmd: 'write', path: file, contents: 'after\n' })) as { outcome: string };
    assert.equal(outcome.outcome, 'saved');
    await daemon!.stop('SIGKILL');
    daemon = await startDaemon(env);
    const edit = (await listed()).diffs.find((d) => d.path === file);
    assert.equal(edit?.status, 'applied');
    const undo = await cli(env, ['diffs', 'undo', edit!.id]);
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, new RegExp(`^undone ${edit!.id}`));
    assert.equal(await readFile(file, 'utf8'), 'before\n');
  });
});
