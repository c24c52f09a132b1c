/**
 * The order of turns on one channel's wire, without sockets: writes ahead of
 * everything, pass-through requests ahead of polls, first come first served within
 * a class, one job at a time, a job not started in time answered unsent.
 */
import { describe, expect, test } from "bun:test";
import { ChannelQueue, type Priority } from "../../../src/modbus/channel-queue.ts";

/** A queue served by one loop; each job records its name and, while it runs, how many run at once. */
function servedQueue() {
  const queue = new ChannelQueue<string>();
  const order: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const job = (name: string, priority: Priority, work: () => Promise<void> = () => Bun.sleep(2)) =>
    queue.enqueue(
      {
        run: async (context) => {
          running++;
          mostAtOnce = Math.max(mostAtOnce, running);
          order.push(name);
          await work();
          running--;
          return `${name} on ${context}`;
        },
        unsent: () => `${name} unsent`,
      },
      priority,
    );
  const serving = queue.serve({ current: () => "link", prepare: async () => true });
  return { queue, order, job, serving, mostAtOnce: () => mostAtOnce };
}

describe("channel queue", () => {
  test("a write queued behind polls runs next, after the turn in flight only", async () => {
    const { queue, order, job, serving } = servedQueue();
    let releaseFirst = () => {};
    const inFlight = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const polls = [job("poll 1", "poll", () => inFlight), job("poll 2", "poll"), job("poll 3", "poll")];
    await Bun.sleep(1);
    expect(order).toEqual(["poll 1"]);
    const write = job("write", "write");
    releaseFirst();
    expect(await write).toBe("write on link");
    await Promise.all(polls);
    expect(order).toEqual(["poll 1", "write", "poll 2", "poll 3"]);
    queue.close();
    await serving;
  });

  test("pass-through requests go ahead of polls, writes ahead of both, FIFO within each class", async () => {
    const { queue, order, job, serving } = servedQueue();
    let release = () => {};
    const blocker = new Promise<void>((resolve) => {
      release = resolve;
    });
    const all = [job("first", "poll", () => blocker)];
    await Bun.sleep(1);
    // Queued while "first" holds the wire, in an order that mixes the classes.
    all.push(
      job("poll a", "poll"),
      job("pass a", "passthrough"),
      job("write a", "write"),
      job("poll b", "poll"),
      job("pass b", "passthrough"),
      job("write b", "write"),
    );
    expect(queue.lengths).toEqual({ write: 2, passthrough: 2, poll: 2 });
    release();
    await Promise.all(all);
    expect(order).toEqual(["first", "write a", "write b", "pass a", "pass b", "poll a", "poll b"]);
    queue.close();
    await serving;
  });

  test("one job on the wire at a time, however many are queued at once", async () => {
    const { queue, job, serving, mostAtOnce } = servedQueue();
    const classes: Priority[] = ["write", "passthrough", "poll"];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) => job(`job ${index}`, classes[index % 3] as Priority)),
    );
    expect(results).toHaveLength(30);
    expect(results.every((result) => result.endsWith("on link"))).toBe(true);
    expect(mostAtOnce()).toBe(1);
    queue.close();
    await serving;
  });

  test("a job not started within its time is answered unsent and never runs", async () => {
    const queue = new ChannelQueue<string>();
    let ran = false;
    // Nobody serves the queue (a channel stuck reconnecting).
    const answer = await queue.enqueue(
      {
        run: async () => {
          ran = true;
          return "ran";
        },
        unsent: () => "unsent",
        expiresAfterMs: 20,
      },
      "write",
    );
    expect(answer).toBe("unsent");
    expect(queue.lengths.write).toBe(0);
    queue.close();
    expect(ran).toBe(false);
  });

  test("closing answers the waiting jobs unsent, lets the one in flight finish, and refuses later ones", async () => {
    const { queue, job, serving } = servedQueue();
    let release = () => {};
    const inFlight = job("running", "poll", () => new Promise<void>((resolve) => (release = resolve)));
    await Bun.sleep(1);
    const waiting = job("waiting", "write");
    queue.close();
    expect(await waiting).toBe("waiting unsent");
    release();
    expect(await inFlight).toBe("running on link");
    await serving;
    expect(await job("late", "write")).toBe("late unsent");
  });

  test("a job that throws rejects its own promise; the queue goes on", async () => {
    const { queue, job, serving } = servedQueue();
    const failing = job("failing", "write", async () => {
      throw new Error("broken");
    });
    const next = job("next", "poll");
    await expect(failing).rejects.toThrow("broken");
    expect(await next).toBe("next on link");
    queue.close();
    await serving;
  });

  test("jobs wait while the context is prepared, and run once it is ready", async () => {
    const queue = new ChannelQueue<string>();
    let connected = false;
    let prepared = 0;
    const serving = queue.serve({
      current: () => (connected ? "reopened link" : null),
      prepare: async () => {
        prepared++;
        await Bun.sleep(20);
        connected = true;
        return true;
      },
    });
    const pending = queue.enqueue({ run: async (link) => link, unsent: () => "unsent" }, "poll");
    expect(await pending).toBe("reopened link");
    expect(prepared).toBe(1);
    queue.close();
    await serving;
  });

  test("a context that will never be ready (stopped) closes the queue: waiting jobs are answered unsent", async () => {
    const queue = new ChannelQueue<string>();
    const serving = queue.serve({ current: () => null, prepare: async () => false });
    expect(await queue.enqueue({ run: async (link) => link, unsent: () => "unsent" }, "write")).toBe("unsent");
    await serving;
    expect(queue.isClosed).toBe(true);
  });
});
