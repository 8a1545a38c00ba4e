import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mapFileUrl, parseMapping, toLocal, toRemote, type PathMapping } from '../../src/remote/paths.ts';

const maps: PathMapping[] = [
  { remote: '/home/dev/proj', local: '/Users/me/proj' },
  { remote: '/home/dev/proj/vendor', local: '/Users/me/vendor' },
  { remote: '/srv/data', local: '/mnt/data' },
];

describe('remote paths', () => {
  const toLocalCases: [string, string | null][] = [
    ['/home/dev/proj', '/Users/me/proj'],
    ['/home/dev/proj/src/a.ts', '/Users/me/proj/src/a.ts'],
    // The deepest map wins.
    ['/home/dev/proj/vendor/x.c', '/Users/me/vendor/x.c'],
    // Whole segments only: /home/dev/project is not inside /home/dev/proj.
    ['/home/dev/project/a.ts', null],
    ['/etc/passwd', null],
    ['relative/a.ts', null],
    ['/srv/data/', '/mnt/data/'],
  ];
  for (const [remote, local] of toLocalCases) {
    test(`an agent's ${remote} is ${local ?? 'outside every map'} here`, () => assert.equal(toLocal(maps, remote), local));
  }

  const toRemoteCases: [string, string | null][] = [
    ['/Users/me/proj/src/a.ts', '/home/dev/proj/src/a.ts'],
    ['/Users/me/vendor/x.c', '/home/dev/proj/vendor/x.c'],
    ['/Users/me/projects/a.ts', null],
    ['/mnt/data', '/srv/data'],
  ];
  for (const [local, remote] of toRemoteCases) {
    test(`the editor's ${local} is ${remote ?? 'outside every map'} for the agent`, () => assert.equal(toRemote(maps, local), remote));
  }

  test('a map of a root folder keeps the rest of the path', () => {
    assert.equal(toLocal([{ remote: '/', local: '/mnt/box' }], '/etc/hosts'), '/mnt/box/etc/hosts');
    assert.equal(toRemote([{ remote: '/', local: '/mnt/box' }], '/mnt/box/etc/hosts'), '/etc/hosts');
  });

  test('file URLs are mapped with their escapes, both ways', () => {
    const local = mapFileUrl('file:///home/dev/proj/a%20b.ts', (p) => toLocal(maps, p), 'to-local');
    assert.equal(local, 'file:///Users/me/proj/a%20b.ts');
    const remote = mapFileUrl('file:///Users/me/proj/a%20b.ts', (p) => toRemote(maps, p), 'to-remote');
    assert.equal(remote, 'file:///home/dev/proj/a%20b.ts');
    assert.equal(mapFileUrl('file:///elsewhere/a.ts', (p) => toRemote(maps, p), 'to-remote'), null);
    assert.equal(mapFileUrl('_claude_fs_right:/Users/me/proj/a.ts', (p) => toRemote(maps, p), 'to-remote'), null);
  });

  test('--map values are checked and normalised', () => {
    assert.deepEqual(parseMapping('/home/dev/proj/=/Users/me/proj/'), { remote: '/home/dev/proj', local: '/Users/me/proj' });
    // The first "=" splits: a local dir may hold one.
    assert.deepEqual(parseMapping('/a=/b=c'), { remote: '/a', local: '/b=c' });
    assert.throws(() => parseMapping('/home/dev/proj'), /<remote-dir>=<local-dir>/);
    assert.throws(() => parseMapping('proj=/Users/me/proj'), /remote dir "proj" must be an absolute path/);
    assert.throws(() => parseMapping('/p=rel'), /local dir "rel" must be an absolute path/);
    assert.throws(() => parseMapping('/p/../etc=/x'), /must not contain "\.\."/);
  });
});
