// The commands of pi's own terminal UI, which pi's RPC mode does not know: sent as a prompt,
// `/compact` or `!ls` would reach the model as text. Patchbay carries them out with pi's RPC
// commands instead, for every face (UI, CLI, API). No node imports: the renderer's
// autocomplete lists the same table.

export interface BuiltinCommand {
  name: string;
  /** How its argument is written, for the help line (`<name>`, `[instructions]`). */
  args?: string;
  description: string;
}

/** What Patchbay runs for `/name`-style commands, as pi's TUI names and describes them. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  { name: 'compact', args: '[instructions]', description: 'Compact the conversation, optionally with instructions for the summary' },
  { name: 'name', args: '<name>', description: 'Name this session' },
  { name: 'new', description: 'Start a new session' },
  { name: 'fork', args: '<text of an earlier prompt>', description: 'Continue from before an earlier prompt, in a new session' },
  { name: 'clone', description: 'Copy this session into a new one, at this point' },
  { name: 'export', args: '[file.html]', description: 'Export the session as HTML' },
  { name: 'model', args: '<provider/id>', description: 'Switch the model' },
  { name: 'thinking', args: '<level>', description: 'Set the thinking level' },
];

/** Shell commands: `!cmd` runs it and gives its output to the model with the next prompt; `!!cmd` keeps it out. */
export const SHELL_PREFIXES = [
  { prefix: '!', description: 'Run a shell command; its output goes to the model with the next prompt' },
  { prefix: '!!', description: 'Run a shell command, kept out of the model’s context' },
] as const;

/** Commands of pi's terminal UI that have no RPC command: where to find them in Patchbay instead. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  resume: 'past sessions are in the Sessions view, or `patchbay pi sessions` and `patchbay pi resume`',
  session: 'the session header shows its file, name and stats (`patchbay pi state <id>`)',
  tree: 'fork from an earlier prompt with /fork, or `patchbay pi tree <id>`',
  settings: "pi's settings are in its settings.json; the session's own are in the session menu",
  'scoped-models': "set the models pi cycles through in pi's settings.json",
  login: 'log in with pi in a terminal (`pi /login`)',
  logout: 'log out with pi in a terminal',
  hotkeys: 'the keys are listed under the prompt box',
  copy: 'select the reply in the transcript to copy it',
  share: 'export the session with /export instead',
  import: 'resume a session file from the past sessions list instead',
  reload: 'stop and resume the session to reload its extensions',
  trust: 'run pi in a terminal once to trust the project',
  quit: 'stop the session with its Stop button (`patchbay pi stop <id>`)',
  changelog: "see pi's changelog where it is installed",
  bug: 'report it from pi in a terminal',
};

export type BuiltinAction =
  /** Not one of them: the text goes to pi's `prompt` (extension commands, templates and skills included). */
  | { kind: 'prompt' }
  | { kind: 'compact'; instructions?: string }
  | { kind: 'name'; name: string }
  | { kind: 'new' }
  | { kind: 'fork'; at: string }
  | { kind: 'clone' }
  | { kind: 'export'; path?: string }
  | { kind: 'model'; provider: string; modelId: string }
  | { kind: 'thinking'; level: string }
  | { kind: 'bash'; command: string; excludeFromContext: boolean }
  /** A command of pi's terminal UI that cannot run here, or one missing its argument: never sent to the model. */
  | { kind: 'refused'; reason: string };

/**
 * What a prompt's text asks for. `piCommands` are the names pi itself offers (`get_commands`):
 * one of those is pi's, even where pi's terminal UI has a command of that name.
 */
export function parseBuiltin(text: string, piCommands: ReadonlySet<string> = new Set()): BuiltinAction {
  const trimmed = text.trim();
  if (trimmed.startsWith('!')) {
    const excluded = trimmed.startsWith('!!');
    const command = trimmed.slice(excluded ? 2 : 1).trim();
    if (command === '') return { kind: 'refused', reason: `${excluded ? '!!' : '!'} needs a shell command after it` };
    return { kind: 'bash', command, excludeFromContext: excluded };
  }
  const match = /^\/([A-Za-z][\w:-]*)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (match === null) return { kind: 'prompt' };
  const name = match[1]!;
  const rest = (match[2] ?? '').trim();
  if (piCommands.has(name)) return { kind: 'prompt' };
  switch (name) {
    case 'compact':
      return rest === '' ? { kind: 'compact' } : { kind: 'compact', instructions: rest };
    case 'name':
      return rest === '' ? { kind: 'refused', reason: '/name needs the new name: /name <name>' } : { kind: 'name', name: rest };
    case 'new':
      return { kind: 'new' };
    case 'fork':
      return rest === ''
        ? { kind: 'refused', reason: '/fork needs the start of the earlier prompt to continue from: /fork <text> (the Sessions view lists them)' }
        : { kind: 'fork', at: rest };
    case 'clone':
      return { kind: 'clone' };
    case 'export':
      return rest === '' ? { kind: 'export' } : { kind: 'export', path: rest };
    case 'model': {
      const cut = rest.indexOf('/');
      if (cut <= 0 || cut === rest.length - 1 || /\s/.test(rest)) return { kind: 'refused', reason: '/model needs the model as provider/id' };
      return { kind: 'model', provider: rest.slice(0, cut), modelId: rest.slice(cut + 1) };
    }
    case 'thinking':
      return rest === '' || /\s/.test(rest) ? { kind: 'refused', reason: '/thinking needs a level: /thinking <level>' } : { kind: 'thinking', level: rest };
  }
  const elsewhere = ELSEWHERE[name];
  if (elsewhere !== undefined) return { kind: 'refused', reason: `/${name} is a command of pi's terminal UI: ${elsewhere}` };
  return { kind: 'prompt' };
}

/** The earlier prompt `/fork <text>` means: the newest whose text starts with it, else the newest that contains it. */
export function forkPointFor<P extends { entryId: string; text: string }>(points: readonly P[], at: string): P | null {
  const wanted = at.trim().toLowerCase();
  const newestFirst = [...points].reverse();
  return (
    newestFirst.find((p) => p.text.trim().toLowerCase().startsWith(wanted)) ?? newestFirst.find((p) => p.text.toLowerCase().includes(wanted)) ?? null
  );
}
