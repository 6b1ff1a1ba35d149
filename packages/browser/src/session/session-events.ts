/** Something that happened in the browser that the next action result should mention. */
export type SessionEvent =
  | { kind: 'dialog'; tabId: number; type: string; message: string; answer: 'accepted' | 'dismissed' }
  | { kind: 'download'; tabId: number; path: string; bytes: number }
  | { kind: 'download-failed'; tabId: number; name: string; reason: string }
  | { kind: 'tab-opened'; tabId: number; url: string }
  | { kind: 'tab-closed'; tabId: number }
  | { kind: 'tab-crashed'; tabId: number; url: string }
  | { kind: 'navigated'; tabId: number; url: string };

/** An append-only log; an action reads what was appended while it ran. */
export class SessionEventLog {
  private readonly events: SessionEvent[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  /** Events dropped from the front, so marks stay absolute. */
  private dropped = 0;

  /** Position to read from later. */
  mark(): number {
    return this.dropped + this.events.length;
  }

  push(event: SessionEvent): void {
    this.events.push(event);
    // Keep memory flat over a long session; marks older than this are never read.
    if (this.events.length > 2_000) {
      this.events.splice(0, 1_000);
      this.dropped += 1_000;
    }
  }

  /** Track work (a download being saved) whose event an action result should wait for. */
  track(work: Promise<unknown>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Events since `mark`, after pending work settles (at most `waitMs`). */
  async since(mark: number, waitMs = 10_000): Promise<SessionEvent[]> {
    if (this.pending.size) {
      await Promise.race([
        Promise.allSettled([...this.pending]),
        new Promise((resolve) => setTimeout(resolve, waitMs).unref()),
      ]);
    }
    return this.events.slice(Math.max(0, mark - this.dropped));
  }
}
