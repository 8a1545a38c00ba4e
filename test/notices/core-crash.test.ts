import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreCrashNotice } from '../../src/notices/core-crash.ts';

const crash = { at: 1_000, pid: 42, code: null, signal: null, stderr: ['patchbay: lockfile x: removed (editor pid 7 is gone)'] };

test('a core that died of its own error is quoted: its last line on stderr says why', () => {
  const notice = coreCrashNotice({ ...crash, code: 1, stderr: ['TypeError: boom'] }, 3_000, { connections: 4, held: 2 });
  assert.equal(notice.at, 1_000, 'the time of the crash, not of the new start');
  assert.match(notice.message, /exit code 1\) and a new one took over 2000 ms later: 4 connections and 2 pending edits were kept\. Its last words: TypeError: boom$/);
});

test('a core killed by a signal is not given an older line as its last words', () => {
  const notice = coreCrashNotice({ ...crash, signal: 'SIGKILL' }, 3_000, { connections: 1, held: 1 });
  assert.match(notice.message, /killed by SIGKILL\) and a new one took over 2000 ms later: 1 connection and 1 pending edit were kept\.$/);
});
