// The system OpenSSH client as Patchbay runs it for a remote (DESIGN §9b), and what its
// stderr says: the port the server allocated for `-R 0`, and when it fails, what to fix.
// The person's own ~/.ssh/config, keys, agent, ProxyJump and ControlMaster apply; Patchbay only
// adds what it needs and never lets ssh prompt.

export interface SshTunnelSpec {
  /** The ssh program (`ssh`: the one on PATH). */
  ssh: string;
  destination: string;
  /** The local door the remote loopback port forwards to. */
  doorPort: number;
  /** ServerAliveInterval (s) and ServerAliveCountMax: a silent server is noticed after their product. */
  aliveIntervalS: number;
  aliveCountMax: number;
  connectTimeoutS: number;
  /** What the remote login shell runs (the helper's bootstrap). */
  remoteCommand: string;
}

/**
 * `ssh … -R 127.0.0.1:0:127.0.0.1:<door> -- <destination> <command>`. BatchMode: never a prompt
 * (a password, a passphrase, an unknown host key fail instead, and say so). ExitOnForwardFailure:
 * no tunnel without its port. LogLevel VERBOSE: the allocated port is logged at INFO by a direct
 * connection but at VERBOSE by a ControlMaster's client. No agent or X11 forwarding: the remote
 * gets nothing of this machine but the door.
 */
export function sshArgs(spec: SshTunnelSpec): string[] {
  const option = (name: string, value: string | number): string[] => ['-o', `${name}=${value}`];
  return [
    '-T',
    ...option('BatchMode', 'yes'),
    ...option('ExitOnForwardFailure', 'yes'),
    ...option('ServerAliveInterval', spec.aliveIntervalS),
    ...option('ServerAliveCountMax', spec.aliveCountMax),
    ...option('ConnectTimeout', spec.connectTimeoutS),
    ...option('LogLevel', 'VERBOSE'),
    ...option('ForwardAgent', 'no'),
    ...option('ForwardX11', 'no'),
    ...option('RequestTTY', 'no'),
    '-R',
    `127.0.0.1:0:127.0.0.1:${spec.doorPort}`,
    '--',
    spec.destination,
    spec.remoteCommand,
  ];
}

/** Why a destination cannot be handed to ssh, or null: `[user@]host`, an alias of ~/.ssh/config, or `ssh://[user@]host[:port]`. */
export function destinationProblem(destination: string): string | null {
  if (destination === '') return 'the ssh destination is empty';
  if (destination.length > 255) return 'the ssh destination is longer than 255 characters';
  // ssh would read it as an option (`-oProxyCommand=…`): never.
  if (destination.startsWith('-')) return `the ssh destination "${destination}" must not start with "-"`;
  if (/[\s\0-\x1f\x7f]/.test(destination)) return `the ssh destination "${destination}" must not hold spaces or control characters`;
  return null;
}

const ALLOCATED = /^Allocated port (\d{1,5}) for (?:mux )?remote forward/;

/** The remote port from ssh's "Allocated port 41234 for remote forward to 127.0.0.1:4711", or null. */
export function allocatedPort(line: string): number | null {
  const match = ALLOCATED.exec(line.trim());
  if (!match) return null;
  const port = Number(match[1]);
  return port >= 1 && port <= 65535 ? port : null;
}

/** What ssh logs at VERBOSE on the way (not a reason for anything). */
const NOISE = [/^Authenticated to /, /^Allocated port /, /^Transferred: /, /^Bytes per second/, /^Remote connections from /, /^debug\d: /, /^Warning: Permanently added /];

interface Rule {
  match: RegExp;
  say: (m: RegExpExecArray, destination: string) => string;
}

const RULES: Rule[] = [
  {
    match: /REMOTE HOST IDENTIFICATION HAS CHANGED/,
    say: (_m, d) => `${d}'s host key has changed since you last connected: check why, then fix ~/.ssh/known_hosts (ssh-keygen -R <host>) and run "ssh ${d}" once in a terminal`,
  },
  {
    match: /Host key verification failed/,
    say: (_m, d) => `${d}'s host key is not known here: run "ssh ${d}" once in a terminal to check and accept it (Patchbay never answers that question for you)`,
  },
  {
    match: /Permission denied \(([^)]*)\)/,
    say: (m, d) =>
      `${d} accepted none of your keys (it offers: ${m[1]}). Patchbay never types a password or passphrase: load your key into ssh-agent (ssh-add), or name it with IdentityFile in ~/.ssh/config, and check that "ssh ${d} true" works in a terminal`,
  },
  { match: /Too many authentication failures/, say: (_m, d) => `${d} refused after too many keys were offered: name the right one with IdentityFile (and IdentitiesOnly yes) in ~/.ssh/config` },
  {
    match: /Could not resolve hostname ([^:]+):/,
    say: (m) => `the host name "${m[1]}" does not resolve: check the destination, or its Host entry in ~/.ssh/config`,
  },
  { match: /connect to host (\S+) port (\d+): Connection refused/, say: (m) => `nothing answers on port ${m[2]} of ${m[1]}: is its SSH server running (and on that port)?` },
  {
    match: /connect to host (\S+) port (\d+): (?:Connection timed out|Operation timed out)/,
    say: (m) => `${m[1]} did not answer on port ${m[2]} in time: is it up, and reachable from here (VPN, firewall)?`,
  },
  { match: /connect to host (\S+) port \d+: (No route to host|Network is unreachable)/, say: (m) => `${m[1]} cannot be reached from here (${m[2]}): check the network, or the VPN` },
  {
    match: /remote port forwarding failed|Master refused forwarding request|forwarding request failed/,
    say: (_m, d) => `${d} refused to forward a port back to Patchbay: its sshd_config must allow it (AllowTcpForwarding yes, or remote; DisableForwarding no)`,
  },
  { match: /Timeout, server (\S+) not responding/, say: (m) => `${m[1]} stopped answering (no reply to keep-alives): the connection was given up` },
  { match: /Bad owner or permissions on (.+)$/, say: (m) => `ssh refuses ${m[1]}: it must be yours and not writable by others (chmod 600 it)` },
  { match: /^(.+): line (\d+): Bad configuration option: (\S+)/, say: (m) => `your ssh configuration ${m[1]} has an option this ssh does not know on line ${m[2]}: ${m[3]}` },
  { match: /kex_exchange_identification: (.+)$/, say: (m, d) => `${d} closed the connection before it began (${m[1]}): is it an SSH server, and not refusing new connections (MaxStartups)?` },
  { match: /Connection (?:closed|reset) by (.+)$/, say: (m) => `the connection was closed by ${m[1]}` },
  { match: /Read from remote host (\S+): (.+)$/, say: (m) => `the connection to ${m[1]} broke: ${m[2]}` },
  { match: /client_loop: send disconnect: (.+)$/, say: (m) => `the connection broke: ${m[1]}` },
];

/**
 * Why ssh ended, for the person: the first line a rule knows (with what to fix; `known`), else
 * ssh's own last line, else its exit status. `spawnError` when ssh could not be run at all.
 */
export function whatToFix(
  stderr: readonly string[],
  exit: { code: number | null; signal: string | null; spawnError?: string },
  destination: string,
): { reason: string; known: boolean } {
  if (exit.spawnError !== undefined) {
    const reason = /ENOENT/.test(exit.spawnError) ? `no ssh program on PATH: install OpenSSH's client (${exit.spawnError})` : `ssh could not be started: ${exit.spawnError}`;
    return { reason, known: true };
  }
  for (const rule of RULES) {
    for (const line of stderr) {
      const m = rule.match.exec(line);
      if (m) return { reason: rule.say(m, destination), known: true };
    }
  }
  const last = [...stderr].reverse().find((line) => line.trim() !== '' && !NOISE.some((n) => n.test(line)));
  const status = exit.signal !== null ? `ended by ${exit.signal}` : `exited with status ${exit.code}`;
  return { reason: last !== undefined ? `ssh ${status}: ${last.trim()}` : `ssh ${status}`, known: false };
}
