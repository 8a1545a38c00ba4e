// Rewriting a person's file from what it holds now (an undo): atomic, the mode kept, never over a
// change made meanwhile, nothing left behind, and refused (the file as it was) where a rename
// would do harm or lose bytes.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { chmod, link, lstat, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { rewriteFile, RewriteError } from '../../src/fs/rewrite-file.ts';
import { tempDir, type TempDir } from '../peers/wait.ts';

let dir: TempDir;
before(async () => {
  dir = await tempDir('rewrite-file');
});
after(() => dir.cleanup());

const upper = (text: string) => ({ text: text.toUpperCase() });

test('the new text replaces the file, which keeps its mode; no temp file is left', async () => {
  const path = join(dir.path, 'mode.sh');
  await writeFile(path, 'echo hi\n');
  await chmod(path, 0o751);
  assert.deepEqual(await rewriteFile(path, 1024, upper), { kind: 'written' });
  assert.equal(await readFile(path, 'utf8'), 'ECHO HI\n');
  assert.equal((await stat(path)).mode & 0o777, 0o751);
  assert.ok(!(await readdir(dir.path)).some((n) => n.endsWith('.tmp')));
});

test('a change made to the file while its new text was made is read again, and kept', async () => {
  const path = join(dir.path, 'race.txt');
  await writeFile(path, 'first\n');
  const seen: string[] = [];
  const outcome = await rewriteFile(path, 1024, (text) => {
    seen.push(text);
    // Another writer, between the read and the rename, on the first try only.
    if (seen.length === 1) writeFileSync(path, 'second, longer\n');
    return { text: `${text}+` };
  });
  assert.deepEqual(outcome, { kind: 'written' });
  assert.deepEqual(seen, ['first\n', 'second, longer\n'], 'read again after the change');
  assert.equal(await readFile(path, 'utf8'), 'second, longer\n+', "the other writer's text kept, the new text made from it");
});

test('a refusal and an unchanged text leave the file as it was', async () => {
  const path = join(dir.path, 'same.txt');
  await writeFile(path, 'same\n');
  const before = await stat(path);
  assert.deepEqual(await rewriteFile(path, 1024, () => ({ refuse: 'no' })), { kind: 'refused', why: 'no' });
  assert.deepEqual(await rewriteFile(path, 1024, (text) => ({ text })), { kind: 'unchanged' });
  assert.equal((await stat(path)).mtimeMs, before.mtimeMs);
});

test('a file can be removed (an agent’s new file, undone whole)', async () => {
  const path = join(dir.path, 'gone.txt');
  await writeFile(path, 'x\n');
  assert.deepEqual(await rewriteFile(path, 1024, () => ({ remove: true })), { kind: 'removed' });
  assert.ok(!(await readdir(dir.path)).includes('gone.txt'));
});

test('through your own symlink the target is rewritten and the link stays', async () => {
  const target = join(dir.path, 'target.txt');
  const via = join(dir.path, 'via.txt');
  await writeFile(target, 'through\n');
  await symlink(target, via);
  assert.deepEqual(await rewriteFile(via, 1024, upper), { kind: 'written' });
  assert.equal(await readFile(target, 'utf8'), 'THROUGH\n');
  assert.ok((await lstat(via)).isSymbolicLink());
});

test('refused, the file untouched: a hard-linked file, one over the size cap, one that is not UTF-8, a missing one', async () => {
  const linked = join(dir.path, 'linked.txt');
  await writeFile(linked, 'two names\n');
  await link(linked, join(dir.path, 'other-name.txt'));
  await assert.rejects(rewriteFile(linked, 1024, upper), (err: Error) => err instanceof RewriteError && /2 hard links/.test(err.message));
  const big = join(dir.path, 'big.txt');
  await writeFile(big, 'x'.repeat(2000));
  await assert.rejects(rewriteFile(big, 1000, upper), /larger than 1000 bytes/);
  const latin = join(dir.path, 'latin1.txt');
  await writeFile(latin, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await assert.rejects(rewriteFile(latin, 1024, upper), /not UTF-8/);
  assert.deepEqual(await readFile(latin), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await assert.rejects(rewriteFile(join(dir.path, 'missing.txt'), 1024, upper), /does not exist/);
  assert.equal(await readFile(linked, 'utf8'), 'two names\n');
});
