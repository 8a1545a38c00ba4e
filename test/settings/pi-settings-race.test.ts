// Another user who can write a project folder races Patchbay's autoconnect write: between a check
// and the write, `.pi` becomes a symlink to the victim's ~/.pi/agent, so the temp file and the
// rename land there (and pi reads that settings.json, with whatever packages it names, at its
// next start). Two real uids: Patchbay as the victim, the swapper as the other.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { testUser, usersUnavailable, type TestUser } from '../peers/users.ts';

const WRITER = fileURLToPath(new URL('./race-writer.ts', import.meta.url));
const RACE_MS = 4000;

/** The other user's loop: `.pi` swapped for a symlink to `target` and back, as fast as it goes, for `ms`. */
const SWAPPER = `
const { renameSync, symlinkSync, unlinkSync } = require('node:fs');
const [pi, target, ms] = process.argv.slice(1);
const until = Date.now() + Number(ms);
let swaps = 0;
while (Date.now() < until) {
  try {
    renameSync(pi, pi + '-held');
    symlinkSync(target, pi);
    for (let i = 0; i < 2000; i++);
    unlinkSync(pi);
    renameSync(pi + '-held', pi);
    swaps++;
  } catch {}
}
process.stdout.write(String(swaps));
`;

function run(user: { uid: number; gid: number }, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { uid: user.uid, gid: user.gid, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} as uid ${user.uid} exited ${code}: ${err}`))));
  });
}

const unavailable = usersUnavailable();

/** The two users and a folder of the test's under /tmp with `mode`, removed after the test. */
async function scene(t: TestContext, prefix: string, mode: number): Promise<{ victim: TestUser; other: TestUser; root: string }> {
  const victim = testUser('patchbay-victim');
  const other = testUser('patchbay-other');
  const root = await mkdtemp(`/tmp/${prefix}-`);
  t.after(() => rm(root, { recursive: true, force: true }));
  await chmod(root, mode);
  return { victim, other, root };
}

test('another user who can write the project folder cannot steer the autoconnect write into your ~/.pi/agent, and no temp file is left', { skip: unavailable ?? false, timeout: 60_000 }, async (t) => {
  const { victim, other, root } = await scene(t, 'patchbay-race', 0o755);
  const home = join(root, 'victim');
  const agent = join(home, '.pi', 'agent');
  await mkdir(agent, { recursive: true });
  await writeFile(join(agent, 'keep.txt'), 'the victim’s own\n');
  spawnSync('chown', ['-R', `${victim.uid}:${victim.gid}`, home]);
  await chmod(home, 0o700);
  // The victim's project, in a folder others may write too (a shared checkout).
  const project = join(root, 'project');
  await mkdir(join(project, '.pi'), { recursive: true });
  await writeFile(join(project, '.pi', 'settings.json'), '{"theme":"dark"}\n');
  spawnSync('chown', ['-R', `${victim.uid}:${victim.gid}`, project]);
  await chmod(project, 0o777);

  const env = { PATH: process.env.PATH, HOME: home };
  const [written, swaps] = await Promise.all([
    run(victim, ['--import', 'tsx', WRITER, project, String(RACE_MS)], env),
    run(other, ['-e', SWAPPER, join(project, '.pi'), agent, String(RACE_MS)], env),
  ]);
  const result = JSON.parse(written) as { written: number; refusals: Record<string, number> };
  t.diagnostic(`${result.written} writes, ${Object.values(result.refusals).reduce((a, b) => a + b, 0)} refusals, ${swaps} swaps`);
  assert.ok(Number(swaps) > 0, 'the other user did swap .pi');

  assert.deepEqual(await readdir(agent), ['keep.txt'], 'nothing written into the victim’s ~/.pi/agent, not even a temp file');
  const left = [...(await readdir(join(project, '.pi')).catch(() => [])), ...(await readdir(join(project, '.pi-held')).catch(() => []))];
  assert.deepEqual(left.filter((name) => name.endsWith('.tmp')), [], 'no temp file left in the project');
  assert.equal(result.written, 0, 'nothing was written while others can write the folder');
  const messages = Object.keys(result.refusals);
  assert.ok(messages.length > 0);
  // Refused for the folder (or, caught mid-swap, for the other user's symlink), saying how to fix it.
  const folderRefusal = new RegExp(`not written, so that no one can steer the write elsewhere: ${project} can be written by its group and others \\(mode 0777\\).*chmod go-w ${project}$`);
  const linkRefusal = new RegExp(`${project}/\\.pi is a symlink owned by uid ${other.uid}, neither you nor root`);
  for (const message of messages) assert.ok(folderRefusal.test(message) || linkRefusal.test(message), message);
  assert.ok(messages.some((message) => folderRefusal.test(message)));
});

test('a project under a sticky folder others may write (like /tmp) is written, and the other user cannot move it away', { skip: unavailable ?? false, timeout: 60_000 }, async (t) => {
  const { victim, other, root } = await scene(t, 'patchbay-sticky', 0o1777);
  const project = join(root, 'project');
  await mkdir(project);
  await chown(project, victim.uid, victim.gid);
  const env = { PATH: process.env.PATH, HOME: root };
  const moved = spawnSync('mv', [project, join(root, 'stolen')], { uid: other.uid, gid: other.gid, encoding: 'utf8' });
  assert.notEqual(moved.status, 0, 'the sticky bit keeps the other user from moving the victim’s folder');
  const written = JSON.parse(await run(victim, ['--import', 'tsx', WRITER, project, '200'], env)) as { written: number; refusals: Record<string, number> };
  assert.deepEqual(written.refusals, {});
  assert.ok(written.written > 0);
});
