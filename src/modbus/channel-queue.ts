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
 *
 * A job queued while the wire is free starts within the `enqueue` call: the poll
 * cycle's next request goes out with no event-loop turn in between (docs/benchmarks.md,
 * "Modbus polling").
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

/** What the queue runs jobs in: the context when it is ready now, or a way to make it ready. */
export interface QueueContext<Context> {
  /** The context if it is ready now (the link is open), null if it must be prepared first. */
  current(): Context | null;
  /** Makes the context ready (opens the link, with backoff); false when it never will be (stopped). */
  prepare(): Promise<boolean>;
}

type Waiting<Context> = {
  run(context: Context): Promise<unknown>;
  settle(outcome: { result: unknown } | { error: unknown }): void;
  drop(): void;
};

export class ChannelQueue<Context> {
  private readonly waiting: Record<Priority, Waiting<Context>[]> = { write: [], passthrough: [], poll: [] };
  private closed = false;
  /** A job is on the wire, or the context is being prepared. */
  private busy = false;
  private context: QueueContext<Context> | null = null;
  private served: { resolve(): void; reject(error: unknown): void } | null = null;
  private failure: { error: unknown } | null = null;

  /**
   * Queues `job` in its class; settles with its result once it ran, with `unsent()`
   * when it did not, or with the error it threw (the queue goes on).
   */
  enqueue<T>(job: QueuedJob<Context, T>, priority: Priority): Promise<T> {
    if (this.closed) return Promise.resolve(job.unsent());
    const free = this.freeContext();
    if (free !== null) {
      // The wire is free and nothing waits: start it now, without a waiting entry.
      return this.startTurn((context) => job.run(context), free);
    }
    return new Promise<T>((resolve, reject) => {
      const queue = this.waiting[priority];
      let expiry: ReturnType<typeof setTimeout> | undefined;
      const waiting: Waiting<Context> = {
        run: (context) => {
          if (expiry !== undefined) clearTimeout(expiry);
          return job.run(context);
        },
        settle: (outcome) => ("error" in outcome ? reject(outcome.error) : resolve(outcome.result as T)),
        drop: () => {
          if (expiry !== undefined) clearTimeout(expiry);
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
      this.pump();
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
   * Runs the queued jobs one at a time in `context` until the queue is closed (or
   * the context can never be prepared); settles once the last job has finished.
   */
  serve(context: QueueContext<Context>): Promise<void> {
    if (this.context !== null) throw new Error("a channel queue is served once");
    this.context = context;
    return new Promise<void>((resolve, reject) => {
      this.served = { resolve, reject };
      this.pump();
    });
  }

  /** Answers every waiting job `unsent()` and every later one at once; a job running finishes. */
  close(): void {
    this.closed = true;
    for (const priority of priorities) for (const waiting of this.waiting[priority].splice(0)) waiting.drop();
    this.pump();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts the next job if the wire is free. After each job it runs once more, so a lost link is reopened at once. */
  private pump(): void {
    const source = this.context;
    if (this.busy || source === null) return;
    if (this.closed) {
      const served = this.served;
      this.served = null;
      if (this.failure !== null) served?.reject(this.failure.error);
      else served?.resolve();
      return;
    }
    const context = source.current();
    if (context === null) {
      this.busy = true;
      source.prepare().then(
        (ready) => this.freed(ready ? null : { closed: true }),
        (error: unknown) => this.freed({ closed: true, error }),
      );
      return;
    }
    const next = this.next();
    if (next === undefined) return;
    this.startTurn(next.run, context).then(
      (result) => next.settle({ result }),
      (error: unknown) => next.settle({ error }),
    );
  }

  /** Puts a job on the wire; the wire is free again (and the next job started) before its caller hears of it. */
  private startTurn<T>(run: (context: Context) => Promise<T>, context: Context): Promise<T> {
    this.busy = true;
    let running: Promise<T>;
    try {
      running = run(context);
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(this.release, this.release);
    return running;
  }

  /** The turn on the wire has ended (made once: a poll's path allocates nothing it can avoid). */
  private readonly release = () => this.freed(null);

  /** The wire is free again; a context that will never be ready closes the queue. */
  private freed(end: { closed: true; error?: unknown } | null): void {
    this.busy = false;
    if (end !== null) {
      if ("error" in end) this.failure = { error: end.error };
      this.close();
      return;
    }
    this.pump();
  }

  /** The context, when a job queued now could start at once. */
  private freeContext(): Context | null {
    if (this.busy || this.context === null) return null;
    const { write, passthrough, poll } = this.waiting;
    if (write.length > 0 || passthrough.length > 0 || poll.length > 0) return null;
    return this.context.current();
  }

  private next(): Waiting<Context> | undefined {
    for (const priority of priorities) {
      const waiting = this.waiting[priority].shift();
      if (waiting !== undefined) return waiting;
    }
    return undefined;
  }
}
