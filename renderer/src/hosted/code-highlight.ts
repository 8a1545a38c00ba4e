// Code in a reply, highlighted as the review's editor highlights files: CodeMirror's grammars
// (@codemirror/language-data, each loaded when a block of its language first appears) and
// @lezer/highlight's `tok-*` classes, coloured by styles.css. Loaded on demand by markdown.ts.
import { LanguageDescription } from '@codemirror/language';
import { languages } from '@codemirror/language-data';
import { classHighlighter, highlightCode } from '@lezer/highlight';

type Parser = Awaited<ReturnType<LanguageDescription['load']>>['language']['parser'];

const parsers = new Map<string, Parser | null>();
const loading = new Map<string, Promise<void>>();

/** Starts loading the grammar for a fence's language name (`ts`, `python`…); resolves when known. */
export function loadLanguage(name: string): Promise<void> {
  const key = name.toLowerCase();
  if (parsers.has(key)) return Promise.resolve();
  let pending = loading.get(key);
  if (pending === undefined) {
    const description = LanguageDescription.matchLanguageName(languages, key, true);
    pending = (description === null ? Promise.resolve(null) : description.load().then((support) => support.language.parser))
      .catch(() => null)
      .then((parser) => {
        parsers.set(key, parser);
        loading.delete(key);
      });
    loading.set(key, pending);
  }
  return pending;
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The block as escaped HTML with token spans; null while its grammar is not loaded (or none exists). */
export function highlightedHtml(code: string, name: string): string | null {
  const parser = parsers.get(name.toLowerCase());
  if (!parser) return null;
  let html = '';
  highlightCode(
    code,
    parser.parse(code),
    classHighlighter,
    (text, classes) => (html += classes ? `<span class="${classes}">${escape(text)}</span>` : escape(text)),
    () => (html += '\n'),
  );
  return html;
}
