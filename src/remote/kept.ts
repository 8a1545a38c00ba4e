// What a core keeps with each ssh process at the keeper, so that the next core (after
// `patchbay restart` or a crash) goes on with the tunnel rather than opening another: the remote
// it is for, the tokens the door must go on accepting from agents over there, and once it is up,
// the port, the helper and the lockfiles it wrote. Checked where it comes back in, as a
// connection's record is (relay/conn-meta.ts): one that does not fit is ended, not guessed at.
import { z } from 'zod';
import type { Dialect, RemoteConfig } from '../api/types.ts';
import type { TunnelUp } from './tunnel.ts';

const lockfileSchema = z.object({
  dialect: z.enum(['pi', 'claude']),
  port: z.number().int(),
  token: z.string(),
  path: z.string(),
});

const keptSchema = z.object({
  kind: z.literal('remote-tunnel'),
  /** The remote's settings when it was started: a tunnel for settings changed since is ended. */
  config: z.unknown(),
  tokens: z.object({ pi: z.string().optional(), claude: z.string().optional() }),
  /** Null until it was up. */
  up: z
    .object({
      remotePort: z.number().int().min(1).max(65535),
      helperPid: z.number().int().positive(),
      lockfiles: z.array(lockfileSchema),
      problems: z.array(z.string()),
    })
    .nullable(),
});

export type KeptTunnel = z.infer<typeof keptSchema>;

export function keptTunnel(config: RemoteConfig, tokens: Partial<Record<Dialect, string>>, up: TunnelUp | null): KeptTunnel {
  return { kind: 'remote-tunnel', config, tokens, up };
}

/** Whether a child the keeper kept is a tunnel (and not, say, a hosted pi). */
export function isKeptTunnel(meta: unknown): boolean {
  return typeof meta === 'object' && meta !== null && (meta as { kind?: unknown }).kind === 'remote-tunnel';
}

/** The record, or null when it cannot be used. */
export function readKeptTunnel(meta: unknown): KeptTunnel | null {
  const parsed = keptSchema.safeParse(meta);
  return parsed.success ? parsed.data : null;
}
