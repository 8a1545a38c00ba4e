import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allocatedPort, destinationProblem, sshArgs, whatToFix } from '../../src/remote/ssh.ts';

const exit = { code: 255, signal: null };

describe('ssh as Patchbay runs it', () => {
  test('never prompts, needs its forward, and forwards a remote loopback port to the door', () => {
    const args = sshArgs({ ssh: 'ssh', destination: 'me@devbox', doorPort: 4711, aliveIntervalS: 15, aliveCountMax: 3, connectTimeoutS: 20, remoteCommand: 'exec /bin/sh' });
    for (const option of ['BatchMode=yes', 'ExitOnForwardFailure=yes', 'ServerAliveInterval=15', 'ServerAliveCountMax=3', 'ForwardAgent=no']) {
      assert.ok(args.includes(option), `${option} in ${args.join(' ')}`);
    }
    assert.deepEqual(args.slice(args.indexOf('-R'), args.indexOf('-R') + 2), ['-R', '127.0.0.1:0:127.0.0.1:4711']);
    // The destination comes after "--": ssh never reads it as an option.
    assert.deepEqual(args.slice(-3), ['--', 'me@devbox', 'exec /bin/sh']);
  });

  test('a destination that ssh would read as an option, or with spaces, is refused', () => {
    assert.match(destinationProblem('-oProxyCommand=touch /tmp/x') ?? '', /must not start with "-"/);
    assert.match(destinationProblem('me@devbox ls') ?? '', /spaces or control characters/);
    assert.match(destinationProblem('') ?? '', /empty/);
    assert.equal(destinationProblem('me@devbox'), null);
    assert.equal(destinationProblem('ssh://me@devbox:2222'), null);
  });

  test('the port the server allocated is read from its log line, direct or through a ControlMaster', () => {
    assert.equal(allocatedPort('Allocated port 41234 for remote forward to 127.0.0.1:4711'), 41234);
    assert.equal(allocatedPort('Allocated port 41234 for remote forward to 127.0.0.1:4711\r'), 41234);
    assert.equal(allocatedPort('Authenticated to devbox ([10.0.0.2]:22) using "publickey".'), null);
    assert.equal(allocatedPort('Allocated port 99999 for remote forward to 127.0.0.1:4711'), null);
  });

  const failures: [string, string[], RegExp][] = [
    ['an unknown host key', ['Host key verification failed.'], /run "ssh devbox" once in a terminal/],
    ['a changed host key', ['@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @', 'Host key verification failed.'], /host key has changed/],
    ['no key accepted', ['me@devbox: Permission denied (publickey,password).'], /accepted none of your keys \(it offers: publickey,password\).*ssh-agent/],
    ['a name that does not resolve', ['ssh: Could not resolve hostname devbox: Name or service not known'], /"devbox" does not resolve/],
    ['a refused port', ['ssh: connect to host 10.0.0.2 port 22: Connection refused'], /nothing answers on port 22 of 10.0.0.2/],
    ['a refused forward', ['Authenticated to devbox.', 'Error: remote port forwarding failed for listen port 0'], /AllowTcpForwarding/],
    ['a silent server', ['Timeout, server devbox not responding.'], /stopped answering/],
  ];
  for (const [what, lines, want] of failures) {
    test(`ssh failing with ${what} says what to fix`, () => {
      const said = whatToFix(lines, exit, 'devbox');
      assert.match(said.reason, want);
      assert.equal(said.known, true);
    });
  }

  test('an unknown failure shows ssh’s own last words, not its chatter', () => {
    assert.deepEqual(whatToFix(['something odd happened', 'Transferred: sent 100, received 200 bytes'], exit, 'devbox'), {
      reason: 'ssh exited with status 255: something odd happened',
      known: false,
    });
    assert.equal(whatToFix([], { code: null, signal: 'SIGTERM' }, 'devbox').reason, 'ssh ended by SIGTERM');
  });

  test('no ssh on PATH says to install it', () => {
    assert.match(whatToFix([], { code: null, signal: null, spawnError: 'spawn ssh ENOENT' }, 'devbox').reason, /no ssh program on PATH/);
  });
});
