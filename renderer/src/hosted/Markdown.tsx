// A reply rendered from its markdown (markdown.ts, loaded with the first reply so the first
// screen does not carry the parser): plain text until it has loaded, then formatted, code
// highlighted once its grammar has arrived.
import { memo, useMemo, useSyncExternalStore } from 'react';

type MarkdownModule = typeof import('./markdown.ts');

let loaded: MarkdownModule | null = null;
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  loading ??= import('./markdown.ts').then((module) => {
    loaded = module;
    module.subscribeHighlighter(notify);
    notify();
  });
  return () => listeners.delete(listener);
}

/** Changes when the parser or a grammar arrived, so what was drawn plain is drawn again. */
function version(): number {
  return loaded === null ? -1 : loaded.highlighterVersion();
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const ready = useSyncExternalStore(subscribe, version);
  const html = useMemo(() => (loaded === null ? null : loaded.markdownHtml(text)), [text, ready]);
  if (html === null) return <div className="markdown plain">{text}</div>;
  // markdown-it escapes raw HTML (html: false): what is inserted is its own markup only.
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
});
