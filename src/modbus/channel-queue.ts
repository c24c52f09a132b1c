/**
 * The order in which work goes on one channel's wire (docs/polling.md, "Scheduling"):
 * register writes first, then pass-through requests (a Modbus TCP server's clients,
 * issue 26), then regular polls; first come, first served within a class; one job on
 * the wire at a time, so an RTU line never carries two requests at once.
 *
 * A job is one turn on the wire: one transaction, or a few that must not be split
 * (a write's read before, write and read-back). A poll is therefore late by at most
 * the turns of higher classes waiting ahead of it, and a job of a higher class waits
 * at most for the turn in flight. Nothing here touches a socket: whoever serves the
 * queue hands each job its context (the channel's open link).
 */

export const priorities = ["write", "passthrough", "poll"] as const;
export type Priority = (typeof priorities)[number];

export interface QueuedJob<Context, T> {
  run(context: Context): Promise<T>;
  /** The answer when the job never runs: it expired, or the queue was closed first. */
  unsent(): T;
  /** Given up (answered `unsent()`) when not started within this time. */
  expiresAfterMs?: number;
}

type Waiting<Context> = { start(context: Context): Promise<void>; drop(): void };

export class ChannelQueue<Context> {
  private readonly waiting: Record<Priority, Waiting<Context>[]> = { write: [], passthrough: [], poll: [] };
  private closed = false;
  private serving = false;
  private arrived: (() => void) | null = null;

  /**
   * Queues `job` in its class; settles with its result once it ran, with `unsent()`
   * when it did not, or with the error it threw (the queue goes on).
   */
  enqueue<T>(job: QueuedJob<Context, T>, priority: Priority): Promise<T> {
    if (this.closed) return Promise.resolve(job.unsent());
    return new Promise<T>((resolve, reject) => {
      const queue = this.waiting[priority];
      let expiry: ReturnType<typeof setTimeout> | undefined;
      const waiting: Waiting<Context> = {
        start: async (context) => {
          clearTimeout(expiry);
          try {
            resolve(await job.run(context));
          } catch (error) {
            reject(error);
          }
        },
        drop: () => {
          clearTimeout(expiry);
          resolve(job.unsent());
        },
      };
      if (job.expiresAfterMs !== undefined) {
        expiry = setTimeout(() => {
          const index = queue.indexOf(waiting);
          if (index === -1) return;
          queue.splice(index, 1);
          waiting.drop();
        }, job.expiresAfterMs);
      }
      queue.push(waiting);
      this.arrived?.();
    });
  }

  /** Jobs waiting, per class. */
  get lengths(): Record<Priority, number> {
    return {
      write: this.waiting.write.length,
      passthrough: this.waiting.passthrough.length,
      poll: this.waiting.poll.length,
    };
  }

  /**
   * Runs the queued jobs one at a time until the queue is closed. Before each job,
   * `ready` gives the context to run it in (waiting for it if it must); null ends
   * serving and closes the queue.
   */
  async serve(ready: () => Promise<Context | null>): Promise<void> {
    if (this.serving) throw new Error("a channel queue is served by one loop only");
    this.serving = true;
    try {
      while (!this.closed) {
        // Ready first: a connection lost by the job before is reopened at once, not at the next job.
        const context = await ready();
        if (context === null || this.closed) break;
        const next = this.next();
        if (next === undefined) {
          await new Promise<void>((resolve) => {
            this.arrived = resolve;
          });
          this.arrived = null;
          continue;
        }
        await next.start(context);
      }
    } finally {
      this.close();
    }
  }

  /** Answers every waiting job `unsent()` and every later one at once; a job running finishes. */
  close(): void {
    this.closed = true;
    for (const priority of priorities) for (const waiting of this.waiting[priority].splice(0)) waiting.drop();
    this.arrived?.();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private next(): Waiting<Context> | undefined {
    for (const priority of priorities) {
      const waiting = this.waiting[priority].shift();
      if (waiting !== undefined) return waiting;
    }
    return undefined;
  }
}
