// Line numbers beside the deleted lines of the unified view: the merge package draws a deletion as
// one block widget, which the line-number gutter leaves blank, so "−3 lines at 15" could not be
// told from the text. Each deleted line gets its number in the file on disk, dimmed.
import type { Extension } from '@codemirror/state';
import { GutterMarker, lineNumberWidgetMarker } from '@codemirror/view';
import type { EditorView, WidgetType } from '@codemirror/view';
import { getChunks, getOriginalDoc } from '@codemirror/merge';

class DeletedNumbers extends GutterMarker {
  constructor(
    readonly first: number,
    readonly count: number,
  ) {
    super();
  }

  override eq(other: DeletedNumbers): boolean {
    return this.first === other.first && this.count === other.count;
  }

  override toDOM(): Node {
    const box = document.createElement('div');
    box.className = 'cm-deletedLineNumbers';
    box.setAttribute('aria-hidden', 'true');
    for (let n = this.first; n < this.first + this.count; n++) box.appendChild(document.createElement('div')).textContent = String(n);
    return box;
  }
}

/** The merge package's deletion widget builds its lines itself (it has a `buildDOM`); other block widgets do not. */
function isDeletion(widget: WidgetType): boolean {
  return typeof (widget as unknown as { buildDOM?: unknown }).buildDOM === 'function';
}

function marker(view: EditorView, widget: WidgetType, block: { from: number }): GutterMarker | null {
  if (!isDeletion(widget)) return null;
  const chunk = getChunks(view.state)?.chunks.find((c) => c.fromB === block.from && c.toA > c.fromA);
  if (chunk === undefined) return null;
  const original = getOriginalDoc(view.state);
  const first = original.lineAt(chunk.fromA).number;
  const last = original.lineAt(chunk.endA).number;
  return new DeletedNumbers(first, last - first + 1);
}

/** For the unified layout's line-number gutter. */
export function deletedLineNumbers(): Extension {
  return lineNumberWidgetMarker.of(marker);
}
