// One frame opened: indented, copyable, and honest about what the log kept of it.
import { useMemo, useState } from 'react';
import type { TrafficEntry } from '../../../src/api/types.ts';
import { byteSize } from '../../../src/api/traffic.ts';
import { isCut, prettyFrame } from './frame-text.ts';

export function FrameDetail({ entry }: { entry: TrafficEntry }) {
  const pretty = useMemo(() => prettyFrame(entry.preview), [entry.preview]);
  const cut = isCut(entry);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = (): void => {
    navigator.clipboard.writeText(pretty).then(
      () => setCopied('Copied'),
      (err: Error) => setCopied(`Could not copy: ${err.message}`),
    );
  };
  return (
    <div className="frame-detail">
      <div className="actions compact">
        <button type="button" onClick={copy}>
          Copy
        </button>
        <span role="status" className="meta">
          {copied ?? ''}
        </span>
        <span className="spacer" />
        {cut && (
          <span className="meta">
            The start of a {byteSize(entry.bytes)} frame: Patchbay keeps the first {entry.preview.length - 1} characters of each.
          </span>
        )}
      </div>
      <pre tabIndex={0} aria-label="Frame">
        {pretty}
      </pre>
    </div>
  );
}
