// Syntax highlighting by file type. Each language arrives as its own chunk when a file of its
// kind is first shown (@codemirror/language-data knows the extensions and file names), so
// neither the first screen nor the diff editor carries every grammar. Tokens get `tok-*`
// classes, coloured by styles.css for the light and the dark scheme alike.
import { LanguageDescription, syntaxHighlighting } from '@codemirror/language';
import type { LanguageSupport } from '@codemirror/language';
import { languages } from '@codemirror/language-data';
import { classHighlighter } from '@lezer/highlight';
import type { Extension } from '@codemirror/state';
import { baseName } from '../../../electron/shared/labels.ts';

export const tokenClasses: Extension = syntaxHighlighting(classHighlighter);

/** The language for a path if it is known at once: null for a file type no grammar knows, undefined while its grammar is not loaded. */
export function loadedLanguageFor(path: string): LanguageSupport | null | undefined {
  const description = LanguageDescription.matchFilename(languages, baseName(path));
  return description === null ? null : description.support;
}

/** The language for a path, loaded; null for a file type no grammar knows. */
export async function languageFor(path: string): Promise<LanguageSupport | null> {
  const description = LanguageDescription.matchFilename(languages, baseName(path));
  return description === null ? null : description.load();
}
