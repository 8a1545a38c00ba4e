// A part of the UI that arrives as its own chunk. If the chunk cannot be fetched (Patchbay
// went away while it loaded), that part says so in place; without this the failed import
// would unmount the whole page, lost-connection banner included.
import { Component, Suspense, type ReactNode } from 'react';
import { ErrorText } from './ErrorText.tsx';

interface Props {
  /** What is loading, for the messages: "the diff editor". */
  what: string;
  className: string;
  children: ReactNode;
}

export class LoadBoundary extends Component<Props, { failed: string | null }> {
  override state: { failed: string | null } = { failed: null };

  static getDerivedStateFromError(err: unknown): { failed: string } {
    return { failed: err instanceof Error ? err.message : String(err) };
  }

  override render(): ReactNode {
    const { what, className, children } = this.props;
    if (this.state.failed !== null) return <ErrorText>{`Could not load ${what}: ${this.state.failed}`}</ErrorText>;
    return <Suspense fallback={<div className={className}>Loading {what}…</div>}>{children}</Suspense>;
  }
}
