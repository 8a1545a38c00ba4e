// Patchbay's settings: their defaults and the rules a value must follow, checked where a
// value enters (a command's patch, or what config.json holds).
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { HubError, type PatchbaySettings, type RemoteConfig } from '../api/types.ts';
import { mappingProblem } from '../remote/paths.ts';
import { destinationProblem } from '../remote/ssh.ts';
import { kindOf, preview, valueAt } from '../api/json.ts';

const MiB = 1024 * 1024;

export const DEFAULT_SETTINGS: PatchbaySettings = Object.freeze({
  takeover: true,
  claude: true,
  reviewFolders: Object.freeze([]) as unknown as string[],
  diagnosticsDeadlineMs: 1500,
  maxFrameBytes: 64 * MiB,
  maxPendingPerSession: 64,
  reviewRoute: 'editor-and-patchbay',
  reviewMode: 'before',
  reviewModePerFolder: Object.freeze({}),
  suggestionModel: 'editor',
  suggestionModelPerEditor: Object.freeze({}),
  suggestionSessionPerEditor: Object.freeze({}),
  launchAtLogin: false,
  allowPiExtensions: false,
  trustedLockDirs: Object.freeze([]) as unknown as string[],
  piCommand: '',
  remotes: Object.freeze([]) as unknown as RemoteConfig[],
});

/** A fresh, mutable copy of the defaults. */
export function defaultSettings(): PatchbaySettings {
  return structuredClone(DEFAULT_SETTINGS);
}

/** `editor`, `session`, or `provider/id` (the id may itself hold slashes, e.g. `openrouter/a/b`). */
export function isModelChoice(value: string): boolean {
  return value === 'editor' || value === 'session' || /^[^\s/]+\/\S+$/.test(value);
}

const MODEL_CHOICE = 'must be "editor", "session" or "provider/id"';

function wholeNumber(min: number, max: number, what: string) {
  const message = `must be a whole number ${what}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
}

const PI_COMMAND = 'must be a path, or a JSON array of the program and its arguments (["/usr/bin/node","/opt/pi/cli.js"])';

/** A path, or (starting with `[`) a JSON array of non-empty strings; '' means "not set". */
function isPiCommand(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[')) return true;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return Array.isArray(parsed) && parsed.length > 0 && parsed.every((p) => typeof p === 'string' && p !== '');
  } catch {
    return false;
  }
}

/** A remote's name: what `status` shows and `remote remove` takes. */
export const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const REMOTE_NAME_RULE = 'must be a name of letters, digits, ".", "_" and "-" (at most 64, starting with a letter or digit)';

const remoteSchema = z.strictObject(
  {
    name: z.string({ error: REMOTE_NAME_RULE }).regex(REMOTE_NAME, { error: REMOTE_NAME_RULE }),
    destination: z.string({ error: 'must be an ssh destination' }).superRefine((value, ctx) => {
      const problem = destinationProblem(value);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
    maps: z
      .array(
        z.strictObject({ remote: z.string(), local: z.string() }, { error: 'must be {"remote": dir, "local": dir}' }).superRefine((map, ctx) => {
          const problem = mappingProblem(map);
          if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
        }),
        { error: 'must be a list of {"remote": dir, "local": dir}' },
      )
      .min(1, { error: 'must map at least one remote dir to a local one' }),
  },
  { error: 'must be {"name", "destination", "maps"}' },
);

const modelChoice = z.string({ error: MODEL_CHOICE }).refine(isModelChoice, { error: MODEL_CHOICE });
const reviewMode = z.enum(['before', 'after'], { error: 'must be "before" or "after"' });
const editorId = z.string().min(1, { error: 'editor ids must not be empty' });

/** One schema per setting, so a stored file is checked field by field (one bad value costs one field). */
export const SETTING_SCHEMAS = {
  takeover: z.boolean({ error: 'must be true or false' }),
  claude: z.boolean({ error: 'must be true or false' }),
  reviewFolders: z.array(
    z.string({ error: 'must be an absolute path' }).refine(isAbsolute, { error: 'must be an absolute path' }),
    { error: 'must be a list of absolute paths' },
  ),
  diagnosticsDeadlineMs: wholeNumber(50, 60_000, 'of milliseconds from 50 to 60000'),
  maxFrameBytes: wholeNumber(MiB, 1024 * MiB, `of bytes from ${MiB} (1 MiB) to ${1024 * MiB} (1 GiB)`),
  maxPendingPerSession: wholeNumber(1, 4096, 'from 1 to 4096'),
  reviewRoute: z.enum(['editor-and-patchbay', 'patchbay-only'], {
    error: 'must be "editor-and-patchbay" or "patchbay-only"',
  }),
  reviewMode: reviewMode,
  reviewModePerFolder: z.record(
    z.string().refine(isAbsolute, { error: 'folders must be absolute paths' }),
    reviewMode,
    { error: 'must map absolute folders to "before" or "after"' },
  ),
  suggestionModel: modelChoice,
  suggestionModelPerEditor: z.record(editorId, modelChoice, { error: 'must map editor ids to model choices' }),
  suggestionSessionPerEditor: z.record(
    editorId,
    z.string().regex(/^(pi|claude|unknown):.+$/, { error: 'must be a session key "kind:cwd"' }),
    { error: 'must map editor ids to session keys' },
  ),
  launchAtLogin: z.boolean({ error: 'must be true or false' }),
  allowPiExtensions: z.boolean({ error: 'must be true or false' }),
  trustedLockDirs: z.array(
    z.string({ error: 'must be an absolute path' }).refine(isAbsolute, { error: 'must be an absolute path' }),
    { error: 'must be a list of absolute paths' },
  ),
  piCommand: z
    .string({ error: PI_COMMAND })
    .max(4096, { error: 'must be at most 4096 characters' })
    .refine((text) => !/[\r\n]/.test(text), { error: 'must be one line' })
    .refine(isPiCommand, { error: PI_COMMAND }),
  remotes: z
    .array(remoteSchema, { error: 'must be a list of remotes' })
    .max(64, { error: 'must be at most 64 remotes' })
    .refine((list) => new Set(list.map((r) => r.name)).size === list.length, { error: 'must not name a remote twice' }),
} satisfies { [K in keyof PatchbaySettings]: z.ZodType<PatchbaySettings[K]> };

const PATCH_SCHEMA = z.strictObject(SETTING_SCHEMAS).partial();

type SettingKey = keyof PatchbaySettings;
const SETTING_KEYS = Object.keys(SETTING_SCHEMAS) as SettingKey[];

function pathName(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key)),
    '',
  );
}

function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown, prefix: PropertyKey[] = []): string[] {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown setting${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    }
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_key') {
      const inner = issue.issues.map((i) => i.message).join('; ');
      return `"${pathName(path.slice(0, -1))}" has an invalid key ${preview(path.at(-1))}: ${inner}`;
    }
    return `"${pathName(path)}" ${issue.message} (got ${preview(valueAt(input, issue.path))})`;
  });
}

/** Checks a `settings.set` patch; throws HubError('invalid') naming each bad field and why. */
export function validateSettingsPatch(patch: unknown): Partial<PatchbaySettings> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new HubError(`settings: a patch must be an object of settings (got ${kindOf(patch)})`, 'invalid');
  }
  const result = PATCH_SCHEMA.safeParse(patch);
  if (!result.success) {
    throw new HubError(`settings: ${describeIssues(result.error.issues, patch).join('; ')}`, 'invalid');
  }
  return result.data as Partial<PatchbaySettings>;
}

/**
 * Reads stored settings over the defaults. A bad stored value costs only that field, which
 * falls back to its default with a warning; unknown keys (a newer Patchbay's) are ignored.
 */
export function parseStoredSettings(raw: unknown, source: string): { settings: PatchbaySettings; warnings: string[] } {
  const settings = defaultSettings();
  if (raw === undefined) return { settings, warnings: [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { settings, warnings: [`${source}: "settings" must be an object (got ${kindOf(raw)}); using the defaults`] };
  }
  const warnings: string[] = [];
  const stored = raw as Record<string, unknown>;
  for (const key of SETTING_KEYS) {
    if (!Object.hasOwn(stored, key)) continue;
    const result = SETTING_SCHEMAS[key].safeParse(stored[key]);
    if (result.success) {
      (settings as unknown as Record<string, unknown>)[key] = result.data;
    } else {
      const problems = describeIssues(result.error.issues, stored[key], ['settings', key]).join('; ');
      warnings.push(`${source}: ${problems}; using the default ${preview(DEFAULT_SETTINGS[key])}`);
    }
  }
  return { settings, warnings };
}
