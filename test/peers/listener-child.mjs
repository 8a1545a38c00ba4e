// The port of a fake VS Code window, held by a child process as VS Code's extension host holds
// it (the lockfile names the parent's pid). Every connection is piped to the double's server in
// the parent: node listener-child.mjs <target port> [<port to listen on>].
// Prints {"port":N} once listening; exits when its stdin closes (the parent went away).
import { connect, createServer } from 'node:net';

const target = Number(process.argv[2]);
const wanted = Number(process.argv[3] ?? 0);
const sockets = new Set();
const server = createServer((socket) => {
  const upstream = connect({ host: '127.0.0.1', port: target });
  for (const s of [socket, upstream]) {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  }
  socket.pipe(upstream).on('error', () => {});
  upstream.pipe(socket).on('error', () => {});
  socket.on('close', () => upstream.destroy());
  upstream.on('close', () => socket.destroy());
});
server.on('error', (err) => {
  process.stderr.write(`listener-child: ${err.message}\n`);
  process.exit(1);
});
server.listen(wanted, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => {
  for (const s of sockets) s.destroy();
  server.close();
  process.exit(0);
});
