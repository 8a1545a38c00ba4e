// A double of the OpenSSH client for tests that need no root and no second machine: the remote
// command (ssh's last argument) runs here in /bin/sh with the "remote" user's environment (the
// JSON in FAKE_SSH_REMOTE_ENV), and `-R 127.0.0.1:0:127.0.0.1:<door>` is a loopback port of
// its own forwarded to the door, announced on stderr as ssh does at LogLevel VERBOSE. Stdin and
// stdout are the session's. It ends when the remote command does; a signal to it ends the
// session as a dropped connection does (the command's input closes and it is hung up on).
//
// Used as `ssh` by a wrapper first on PATH (fakeSshOnPath in ssh-remote.ts).
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const args = process.argv.slice(2);
const forward = args[args.indexOf('-R') + 1] ?? '';
const door = Number(/^127\.0\.0\.1:0:127\.0\.0\.1:(\d+)$/.exec(forward)?.[1]);
const command = args.at(-1);
if (!Number.isInteger(door) || args.length < 3 || command === undefined) {
  process.stderr.write(`fake ssh: expected -R 127.0.0.1:0:127.0.0.1:<port> … <destination> <command>, got ${JSON.stringify(args)}\n`);
  process.exit(255);
}
const remoteEnv = JSON.parse(process.env.FAKE_SSH_REMOTE_ENV ?? '{}');

const sockets = new Set();
const server = createServer((agent) => {
  const toDoor = connect({ host: '127.0.0.1', port: door });
  for (const s of [agent, toDoor]) {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  }
  agent.pipe(toDoor).pipe(agent);
  agent.on('close', () => toDoor.destroy());
  toDoor.on('close', () => agent.destroy());
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stderr.write(`Allocated port ${port} for remote forward to 127.0.0.1:${door}\n`);
  const session = spawn('/bin/sh', ['-c', command], { env: { PATH: '/usr/bin:/bin', ...remoteEnv }, stdio: ['pipe', 'inherit', 'inherit'] });
  session.stdin.on('error', () => {});
  process.stdin.pipe(session.stdin);
  const hangUp = () => {
    session.stdin.end();
    session.kill('SIGHUP');
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, hangUp);
  session.on('exit', (code, signal) => {
    server.close();
    for (const s of sockets) s.destroy();
    process.exit(code ?? (signal ? 255 : 0));
  });
});
