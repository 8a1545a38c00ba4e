// Listening on a port asked for, or on any port when another program holds it and the caller
// allows that (it then says so: an address agents or browsers remember is no longer Patchbay's).
import type { AddressInfo, Server } from 'node:net';

export async function listenOn(server: Server, spec: { host: string; port: number; fallBack: boolean }): Promise<{ port: number; fellBack: boolean }> {
  const attempt = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, spec.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  let fellBack = false;
  try {
    await attempt(spec.port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!spec.fallBack || spec.port === 0 || code !== 'EADDRINUSE') {
      const why = code === 'EADDRINUSE' ? 'another program holds that port' : (err as Error).message;
      throw Object.assign(new Error(`cannot listen on ${spec.host}:${spec.port}: ${why}`), { code });
    }
    await attempt(0);
    fellBack = true;
  }
  // After listening, an error is a failed accept (EMFILE): the owner logs it, never a crash.
  if (server.listenerCount('error') === 0) server.on('error', () => {});
  return { port: (server.address() as AddressInfo).port, fellBack };
}
