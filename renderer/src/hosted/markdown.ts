// pi's replies are markdown; they are shown as pi's terminal shows them: formatted, code in a
// fixed font and highlighted. markdown-it parses (a well-kept CommonMark parser); raw HTML in a
// reply is escaped, never rendered (html: false), links go through its URL check, and images
// stay text (the window loads nothing from elsewhere). Code is highlighted once its grammar
// has loaded; until then it shows plain, and `onHighlighterReady` lets the view redraw.
import MarkdownIt from 'markdown-it';

type Highlighter = typeof import('./code-highlight.ts');

let highlighter: Highlighter | null = null;
let highlighterLoading: Promise<Highlighter> | null = null;
const listeners = new Set<() => void>();
/** Bumped whenever a grammar arrives, so views that rendered code plain draw it again. */
let version = 0;

function ready(): void {
  version++;
  for (const listener of listeners) listener();
}

function highlight(code: string, lang: string): string {
  const name = lang.trim().split(/\s+/)[0] ?? '';
  if (name === '') return '';
  if (highlighter === null) {
    highlighterLoading ??= import('./code-highlight.ts').then((loaded) => (highlighter = loaded));
    void highlighterLoading.then((loaded) => loaded.loadLanguage(name)).then(ready);
    return '';
  }
  const html = highlighter.highlightedHtml(code, name);
  if (html === null) void highlighter.loadLanguage(name).then(() => highlighter?.highlightedHtml(code, name) !== null && ready());
  return html ?? '';
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, highlight });
md.disable('image');

// Links open beside Patchbay, never in its place.
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('target', '_blank');
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** A reply's markdown as HTML that is safe to insert: every tag in it is markdown-it's own. */
export function markdownHtml(text: string): string {
  return md.render(text);
}

/** For useSyncExternalStore: changes when a grammar arrived. */
export function subscribeHighlighter(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function highlighterVersion(): number {
  return version;
}
