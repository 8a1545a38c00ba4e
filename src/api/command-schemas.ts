// One schema per HubApi command: every face's call is checked here, once, before the hub
// looks anything up (a wrong shape is `invalid`, naming the field; nothing changes).
// No node imports: the same checks can run anywhere the API is spoken.
import { z } from 'zod';
import { HubError, type HubMethod, type ParamsOf } from './types.ts';
import { preview, valueAt } from './json.ts';

/** POSIX `/…`, Windows `C:\…` or `\\server\…`: never resolved against the daemon's own folder. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

const MAX_ID = 200;
const id = (what: string) => z.string({ error: `must be ${what}` }).min(1, { error: `must be ${what}` }).max(MAX_ID, { error: `must be ${what}` });
const sessionId = id('a session id such as "s1"');
const diffId = id('a diff id such as "d1"');
const hostedId = id('a hosted session id');
const absolutePath = z
  .string({ error: 'must be an absolute path' })
  .max(4096, { error: 'must be a path of at most 4096 characters' })
  .refine(isAbsolutePath, { error: 'must be an absolute path' });
const text = z.string({ error: 'must be a string' });
const flag = z.boolean({ error: 'must be true or false' });
const changeNumber = z.number({ error: 'must be a change number (1, 2, …)' }).int({ error: 'must be a change number (1, 2, …)' }).min(1, { error: 'must be a change number (1, 2, …)' });
const changeNumbers = z
  .array(changeNumber, { error: 'must be a list of change numbers (1, 2, …)' })
  .max(100_000, { error: 'must be a list of change numbers (1, 2, …)' });
/** Words for the agent: a short note, not a file. */
const reason = z.string({ error: 'must be a string' }).max(2000, { error: 'must be at most 2000 characters' });
const notes = z
  .array(
    z.strictObject(
      { line: changeNumber.describe('line'), text: reason.refine((t) => t.trim() !== '', { error: 'must not be empty' }) },
      { error: 'must be {"line": 12, "text": "…"}' },
    ),
    { error: 'must be a list of notes {"line", "text"}' },
  )
  .max(100, { error: 'must hold at most 100 notes' });
const diffIds = z.array(diffId, { error: 'must be a list of diff ids' }).min(1, { error: 'must name at least one diff' }).max(1000, { error: 'must name at most 1000 diffs' });
const reviewMode = z.enum(['before', 'after'], { error: 'must be "before" or "after"' });
/** Commands without parameters take nothing, or an empty object. */
const none = z
  .strictObject({}, { error: 'takes no parameters' })
  .optional()
  .transform(() => undefined);

/** A prompt may be a whole document (200 KB is common); the control socket's frame cap bounds it too. */
const MAX_PROMPT_CHARS = 16 * 1024 * 1024;
/** Base64 of one image (about 12 MB of image), and images per prompt. */
const MAX_IMAGE_CHARS = 16 * 1024 * 1024;
const MAX_IMAGES = 10;

const image = z.strictObject(
  {
    data: z
      .string({ error: 'must be base64 text' })
      .min(1, { error: 'must be base64 text' })
      .max(MAX_IMAGE_CHARS, { error: `must be at most ${MAX_IMAGE_CHARS} characters of base64` })
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, { error: 'must be base64 text' }),
    mimeType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp'], { error: 'must be image/png, image/jpeg, image/gif or image/webp' }),
  },
  { error: 'must be {"data": base64, "mimeType": "image/png"}' },
);
const sessionFile = absolutePath.refine((p) => p.endsWith('.jsonl'), { error: "must be a pi session file (…/<name>.jsonl)" });
const htmlFile = absolutePath.refine((p) => p.toLowerCase().endsWith('.html'), { error: 'must be an absolute path ending in .html' });
const queueMode = z.enum(['all', 'one-at-a-time'], { error: 'must be "all" or "one-at-a-time"' });
const nonEmpty = (what: string, max: number) =>
  z.string({ error: `must be ${what}` }).max(max, { error: `must be at most ${max} characters` }).refine((v) => v.trim() !== '', { error: `must be ${what}` });

const dialogAnswer = z.union([z.strictObject({ value: text }), z.strictObject({ confirmed: flag }), z.strictObject({ cancelled: z.literal(true) })], {
  error: 'must be {"value": text}, {"confirmed": true|false} or {"cancelled": true}',
});

const params = <S extends z.core.$ZodLooseShape>(shape: S) => z.strictObject(shape, { error: 'must be an object' });

export const COMMAND_SCHEMAS = {
  snapshot: none,
  bind: params({ sessionId, editorId: id('an editor id, or null for Patchbay').nullable() }),
  unpin: params({ sessionId }),
  restore: none,
  setPaused: params({ paused: flag }),
  'diffs.get': params({ id: diffId }),
  'diffs.accept': params({ id: diffId, contents: text.optional(), changes: changeNumbers.optional(), reason: reason.optional(), notes: notes.optional() }),
  'diffs.reject': params({ id: diffId, reason: reason.optional(), notes: notes.optional() }),
  'diffs.decideLater': params({
    id: diffId,
    outcome: z.enum(['accept', 'reject'], { error: 'must be "accept" or "reject"' }),
    contents: text.optional(),
    changes: changeNumbers.optional(),
    reason: reason.optional(),
    notes: notes.optional(),
    graceMs: z.number({ error: 'must be milliseconds from 0 to 60000' }).int({ error: 'must be milliseconds from 0 to 60000' }).min(0, { error: 'must be milliseconds from 0 to 60000' }).max(60_000, { error: 'must be milliseconds from 0 to 60000' }),
    batch: id('a batch name'),
    verb: z.string({ error: 'must be a string' }).max(200, { error: 'must be at most 200 characters' }),
    what: z.string({ error: 'must be a string' }).max(1000, { error: 'must be at most 1000 characters' }),
  }),
  'diffs.takeBack': params({ ids: diffIds }),
  'diffs.sendNow': params({ ids: diffIds }),
  'diffs.keep': params({ id: diffId, notes: notes.optional(), reason: reason.optional() }),
  'diffs.undo': params({ id: diffId, changes: changeNumbers.optional(), notes: notes.optional(), reason: reason.optional() }),
  'diffs.keepAll': params({ ids: diffIds }),
  'diffs.undoAll': params({ ids: diffIds, reason: reason.optional() }),
  'reviewMode.get': params({ project: absolutePath.optional() }),
  'reviewMode.set': params({ project: absolutePath.optional(), value: reviewMode.nullable() }),
  'diffs.acceptAll': params({ sessionId }),
  'diffs.rejectAll': params({ sessionId }),
  traffic: params({
    sessionId,
    limit: z
      .number({ error: 'must be a whole number from 1 to 100000' })
      .int({ error: 'must be a whole number from 1 to 100000' })
      .min(1, { error: 'must be a whole number from 1 to 100000' })
      .max(100_000, { error: 'must be a whole number from 1 to 100000' })
      .optional(),
  }),
  'settings.get': none,
  restart: none,
  'notices.dismiss': params({ id: id('a notice id') }),
  // The patch itself is checked field by field by the settings' own schemas (unknown keys refused).
  'settings.set': params({ patch: z.record(z.string(), z.unknown(), { error: 'must be an object of settings' }) }),
  'autoconnect.get': params({ project: absolutePath.optional() }),
  'autoconnect.set': params({ project: absolutePath.optional(), value: flag.nullable() }),
  'models.list': params({ sessionId: sessionId.optional() }),
  'models.refresh': params({ sessionId }),
  'suggestionModel.set': params({ choice: id('"editor", "session" or "provider/id"'), editorId: id('an editor id').optional() }),
  'pi.start': params({
    cwd: absolutePath,
    model: id('"provider/id"').optional(),
    args: z.array(text, { error: 'must be a list of strings' }).max(100, { error: 'must hold at most 100 arguments' }).optional(),
    worktree: nonEmpty('a branch name', 200).optional(),
  }),
  'pi.resume': z.union([params({ id: hostedId }), params({ sessionFile })], {
    error: 'must be {"id": a hosted session id} or {"sessionFile": a pi session file}',
  }),
  'pi.sessions': params({ sessionDir: absolutePath.optional() }),
  'pi.get': params({ id: hostedId }),
  'pi.prompt': params({
    id: hostedId,
    text: text.max(MAX_PROMPT_CHARS, { error: `must be at most ${MAX_PROMPT_CHARS} characters` }),
    streamingBehavior: z.enum(['steer', 'followUp'], { error: 'must be "steer" or "followUp"' }).optional(),
    images: z.array(image, { error: 'must be a list of images' }).max(MAX_IMAGES, { error: `must hold at most ${MAX_IMAGES} images` }).optional(),
  }),
  'pi.abort': params({ id: hostedId }),
  'pi.state': params({ id: hostedId }),
  'pi.models': params({ id: hostedId }),
  'pi.setModel': params({ id: hostedId, provider: id('a provider name'), modelId: id('a model id') }),
  'pi.setThinking': params({ id: hostedId, level: id('a thinking level') }),
  'pi.stats': params({ id: hostedId }),
  'pi.answer': params({ id: hostedId, requestId: id('the dialog\'s request id'), answer: dialogAnswer }),
  'pi.stop': params({ id: hostedId, keep: flag.optional() }),
  'pi.commands': params({ id: hostedId }),
  'pi.thinkingLevels': params({ id: hostedId }),
  'pi.forkPoints': params({ id: hostedId }),
  'pi.fork': params({ id: hostedId, entryId: id('an entry id from pi.forkPoints') }),
  'pi.clone': params({ id: hostedId }),
  'pi.newSession': params({ id: hostedId }),
  'pi.switchSession': params({ id: hostedId, sessionFile }),
  'pi.tree': params({ id: hostedId }),
  'pi.compact': params({ id: hostedId, instructions: text.max(64 * 1024, { error: 'must be at most 65536 characters' }).optional() }),
  'pi.setName': params({ id: hostedId, name: nonEmpty('a name', 1000) }),
  'pi.exportHtml': params({ id: hostedId, outputPath: htmlFile.optional() }),
  'pi.bash': params({ id: hostedId, command: nonEmpty('a shell command', 64 * 1024), excludeFromContext: flag.optional() }),
  'pi.abortBash': params({ id: hostedId }),
  'pi.clearQueue': params({ id: hostedId }),
  'pi.setQueueModes': params({ id: hostedId, steering: queueMode.optional(), followUp: queueMode.optional() }),
  'pi.setAutoCompaction': params({ id: hostedId, enabled: flag }),
  'pi.setAutoRetry': params({ id: hostedId, enabled: flag }),
  'pi.abortRetry': params({ id: hostedId }),
  'remotes.reload': params({ wait: id('a remote name').optional() }),
} satisfies { [M in HubMethod]: z.ZodType<ParamsOf<M>> };

function describe(method: string, issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === 'unrecognized_keys') {
    return `${method}: unknown parameter${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  }
  const field = issue.path.length > 0 ? `"${issue.path.map(String).join('.')}" ` : 'parameters ';
  return `${method}: ${field}${issue.message} (got ${preview(valueAt(input, issue.path))})`;
}

/** The command's parameters, checked; throws HubError('invalid') naming the first bad field. */
export function parseParams<M extends HubMethod>(method: M, params: unknown): ParamsOf<M> {
  const schema: z.ZodType = COMMAND_SCHEMAS[method];
  const parsed = schema.safeParse(params ?? undefined);
  if (parsed.success) return parsed.data as ParamsOf<M>;
  throw new HubError(parsed.error.issues.map((issue) => describe(method, issue, params)).join('; '), 'invalid');
}
