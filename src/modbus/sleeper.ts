/**
 * Waits a poller's parts make (a backoff, the time until a device is due, a device's
 * `pause_ms`) that end at once when the poller stops, so `stop()` never waits one out.
 */
export class Sleeper {
  private readonly wakers = new Set<() => void>();
  private stoppedAt = false;

  get stopped(): boolean {
    return this.stoppedAt;
  }

  /** Resolves after `ms`, or earlier at `wake()` or `stop()`; at once when stopped. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.stoppedAt) return resolve();
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.wakers.add(wake);
    });
  }

  /** Ends the waits going on now. */
  wake(): void {
    for (const wake of [...this.wakers]) wake();
  }

  /** Ends the waits going on now and every later one at once. */
  stop(): void {
    this.stoppedAt = true;
    this.wake();
  }
}
