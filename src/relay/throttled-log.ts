// Log lines a peer can cause at will (refused requests, dropped frames): the first is logged at
// once, the rest at most once per interval with a count, so a flood cannot fill the log.

export class ThrottledLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private suppressed = 0;

  constructor(
    private readonly log: (message: string) => void,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  note(message: string): void {
    const at = this.now();
    if (at - this.lastAt < this.intervalMs) {
      this.suppressed++;
      return;
    }
    this.log(this.suppressed > 0 ? `${message} (${this.suppressed} more like it not logged)` : message);
    this.lastAt = at;
    this.suppressed = 0;
  }
}
