// Resources with owners (STYLE: VS Code's DisposableStore). Whoever opens a socket, timer,
// watcher or child registers it here as it is made; one `dispose()` closes them all, and
// tests read `size` to check that nothing is left once an owner has closed.

export interface Disposable {
  dispose(): void;
}

export type DisposableLike = Disposable | (() => void);

function asDisposable(item: DisposableLike): Disposable {
  return typeof item === 'function' ? { dispose: item } : item;
}

export class DisposableStore implements Disposable {
  private readonly items = new Map<DisposableLike, Disposable>();
  private disposed = false;

  /** Owns `item` from now on. Added to a disposed store, it is disposed at once. */
  add<T extends DisposableLike>(item: T): T {
    if (this.disposed) asDisposable(item).dispose();
    else this.items.set(item, asDisposable(item));
    return item;
  }

  /** Gives `item` up without disposing it (it closed by itself). */
  delete(item: DisposableLike): void {
    this.items.delete(item);
  }

  /** Disposes `item` now and forgets it. */
  release(item: DisposableLike): void {
    const owned = this.items.get(item);
    this.items.delete(item);
    owned?.dispose();
  }

  /** What is still open: 0 after `dispose()`. */
  get size(): number {
    return this.items.size;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * A timer owned by the store, forgotten once it has fired. Unref'd: a pending timer of
   * Patchbay's never keeps a process alive by itself.
   */
  timeout(ms: number, fn: () => void): Disposable {
    const handle: Disposable = { dispose: () => clearTimeout(timer) };
    const timer = setTimeout(() => {
      this.items.delete(handle);
      fn();
    }, ms);
    timer.unref();
    return this.add(handle);
  }

  interval(ms: number, fn: () => void): Disposable {
    const timer = setInterval(fn, ms);
    timer.unref();
    return this.add({ dispose: () => clearInterval(timer) });
  }

  /** Disposes everything; safe to call twice. One failing item does not keep the others open. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = [...this.items.values()].reverse();
    this.items.clear();
    const errors: unknown[] = [];
    for (const item of items) {
      try {
        item.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} resources failed to close`);
  }
}
