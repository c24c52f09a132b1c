/**
 * Webhook delivery against a real local HTTP receiver (docs/api.md section 6). Every
 * signature is verified with the npm `standardwebhooks` library, not with
 * fieldhub's own code. Delays are shortened through the dispatcher's settings
 * (the same ones config `webhooks:` sets), never by editing constants.
 */

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { openStore, storeFileName } from "../../src/store/index.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhooks/dispatcher.ts";
import { endpointService } from "../../src/webhooks/endpoints.ts";
import { sampleEvent } from "../harness/events.ts";
import { startTestSite, type TestSite } from "../harness/site.ts";

type Received = { at: number; headers: Record<string, string>; body: string };

let site: TestSite;
let dispatcher: Dispatcher | null = null;
const servers: { stop(force?: boolean): unknown }[] = [];

beforeEach(async () => {
  site = await startTestSite();
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = null;
  for (const server of servers.splice(0)) server.stop(true);
  await site.stop();
});

/** A receiver whose answer to the n-th request (0-based) is chosen by `answer`. */
function receiver(
  answer: (index: number, request: Request) => Response | Promise<Response> = () => new Response(null, { status: 204 }),
) {
  const received: Received[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const body = await request.text();
      const index = received.length;
      received.push({ at: Date.now(), headers: Object.fromEntries(request.headers.entries()), body });
      return answer(index, request);
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/hook`, received };
}

function start(options: Partial<Parameters<typeof startDispatcher>[0]> = {}) {
  dispatcher = startDispatcher({
    store: site.store,
    clock: systemClock,
    logger: silentLogger(),
    retryDelaysMs: [100, 100, 100, 100, 100],
    timeoutMs: 2_000,
    pollEveryMs: 20,
    ...options,
  });
  return dispatcher;
}

async function endpoint(url: string, events: string[] = []) {
  return await endpointService(site.store, () => Date.now()).create({ orgKey: "acme", url, events });
}

/** Records a device.online event for acme (which fans out to its endpoints). */
async function event(type: "device.online" | "device.offline" = "device.online") {
  const org = await site.store.organizations.findByKey("acme");
  if (org === null) throw new Error("no acme");
  return (await site.store.events.record(sampleEvent(type, org.id, Date.now()))).messageId;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("not reached in time");
    await Bun.sleep(10);
  }
}

function verify(secret: string, delivery: Received) {
  return new Webhook(secret).verify(delivery.body, delivery.headers) as {
    id: string;
    type: string;
    timestamp: string;
    data: unknown;
  };
}

describe("delivery", () => {
  test("a message arrives signed, in the spec's envelope and headers, and is logged delivered", async () => {
    const hook = receiver();
    const { endpoint: created, secret } = await endpoint(hook.url);
    const recorded = sampleEvent(
      "device.online",
      (await site.store.organizations.findByKey("acme"))?.id ?? 0,
      Date.now(),
    );
    const { messageId } = await site.store.events.record(recorded);
    start();
    await until(() => hook.received.length === 1);
    const [delivery] = hook.received;
    if (delivery === undefined) throw new Error("nothing received");
    const envelope = verify(secret, delivery);
    expect(envelope).toEqual({
      id: messageId,
      type: "device.online",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: recorded.data,
    });
    expect(messageId).toMatch(/^msg_[0-9a-f]+$/);
    expect(delivery.headers["webhook-id"]).toBe(messageId);
    expect(delivery.headers["x-service-event"]).toBe("device.online");
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(delivery.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(delivery.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    await until(
      async () => (await endpointService(site.store, Date.now).deliveries(created.id))[0]?.status === "delivered",
    );
    const [logged] = await endpointService(site.store, Date.now).deliveries(created.id);
    expect(logged).toMatchObject({ message_id: messageId, status: "delivered", attempts: 1, last_status_code: 204 });
  });

  test("only subscribed endpoints get a message; other organisations' endpoints none", async () => {
    const online = receiver();
    const offline = receiver();
    const all = receiver();
    await endpoint(online.url, ["device.online"]);
    await endpoint(offline.url, ["device.offline"]);
    await endpoint(all.url);
    const globexHook = receiver();
    await endpointService(site.store, Date.now).create({ orgKey: "globex", url: globexHook.url });
    await event("device.online");
    start();
    await until(() => online.received.length === 1 && all.received.length === 1);
    await Bun.sleep(100);
    expect(offline.received).toHaveLength(0);
    expect(globexHook.received).toHaveLength(0);
  });
});

describe("failures and retries", () => {
  test("non-2xx is retried on the schedule: six attempts, same webhook-id, each validly signed", async () => {
    const hook = receiver(() => new Response("boom", { status: 500 }));
    const { endpoint: created, secret } = await endpoint(hook.url);
    const messageId = await event();
    start({ retryDelaysMs: [100, 150, 200, 250, 300] });
    await until(() => hook.received.length === 6, 8_000);
    await Bun.sleep(500);
    expect(hook.received).toHaveLength(6);
    for (const delivery of hook.received) {
      expect(delivery.headers["webhook-id"]).toBe(messageId);
      expect(verify(secret, delivery).id).toBe(messageId);
    }
    const gaps = hook.received.slice(1).map((delivery, index) => delivery.at - (hook.received[index] as Received).at);
    for (const [index, delay] of [100, 150, 200, 250, 300].entries())
      expect(gaps[index]).toBeGreaterThanOrEqual(delay - 5);
    const [logged] = await endpointService(site.store, Date.now).deliveries(created.id);
    expect(logged).toMatchObject({ status: "failed", attempts: 6, last_status_code: 500 });
    expect(logged?.attempt_log).toHaveLength(6);
    expect(logged?.attempt_log[0]).toMatchObject({ status_code: 500, error: "HTTP 500", response: "boom" });
  });

  test("success on a later attempt ends the retries", async () => {
    const hook = receiver((index) => new Response(null, { status: index < 2 ? 503 : 200 }));
    const { endpoint: created } = await endpoint(hook.url);
    await event();
    start();
    await until(
      async () => (await endpointService(site.store, Date.now).deliveries(created.id))[0]?.status === "delivered",
    );
    await Bun.sleep(300);
    expect(hook.received).toHaveLength(3);
  });

  test("a redirect is a failure and is not followed", async () => {
    const target = receiver();
    const hook = receiver(() => new Response(null, { status: 302, headers: { location: target.url } }));
    const { endpoint: created } = await endpoint(hook.url);
    await event();
    start({ retryDelaysMs: [50] });
    await until(
      async () => (await endpointService(site.store, Date.now).deliveries(created.id))[0]?.status === "failed",
    );
    expect(target.received).toHaveLength(0);
    expect((await endpointService(site.store, Date.now).deliveries(created.id))[0]?.last_error).toContain(
      "not followed",
    );
  });

  test("no answer within the timeout is a failure", async () => {
    const hook = receiver(async () => {
      await Bun.sleep(700);
      return new Response(null, { status: 200 });
    });
    const { endpoint: created } = await endpoint(hook.url);
    await event();
    start({ timeoutMs: 300, retryDelaysMs: [50] });
    await until(
      async () => (await endpointService(site.store, Date.now).deliveries(created.id))[0]?.status === "failed",
    );
    const [logged] = await endpointService(site.store, Date.now).deliveries(created.id);
    expect(logged?.last_error).toBe("no answer within 0.3 s");
    expect(logged?.attempt_log.every((attempt) => attempt.status_code === null && attempt.duration_ms >= 290)).toBe(
      true,
    );
  });

  test("a refused connection is a failure", async () => {
    const { endpoint: created } = await endpoint("http://127.0.0.1:1/hook");
    await event();
    start({ retryDelaysMs: [50] });
    await until(
      async () => (await endpointService(site.store, Date.now).deliveries(created.id))[0]?.status === "failed",
    );
    expect((await endpointService(site.store, Date.now).deliveries(created.id))[0]?.attempts).toBe(2);
  });

  test("Retry-After on 429 postpones the next attempt, within the schedule's longest delay", async () => {
    const hook = receiver((index) =>
      index === 0
        ? new Response(null, { status: 429, headers: { "retry-after": "1" } })
        : new Response(null, { status: 200 }),
    );
    await endpoint(hook.url);
    await event();
    start({ retryDelaysMs: [100, 5_000] });
    await until(() => hook.received.length === 2, 5_000);
    const [first, second] = hook.received as [Received, Received];
    expect(second.at - first.at).toBeGreaterThanOrEqual(990);
    expect(second.at - first.at).toBeLessThan(2_000);
  });
});

describe("pausing", () => {
  test("after N messages in a row failed every attempt the endpoint pauses; new messages are held until it is enabled", async () => {
    let healthy = false;
    const hook = receiver(() => new Response(null, { status: healthy ? 200 : 500 }));
    const service = endpointService(site.store, Date.now);
    const { endpoint: created } = await endpoint(hook.url);
    for (let index = 0; index < 3; index++) await event();
    start({ retryDelaysMs: [30], pauseAfterFailedMessages: 3 });
    await until(async () => (await service.get(created.id)).status === "paused");
    expect((await service.get(created.id)).pause_reason).toBe("3 messages in a row failed every attempt");
    const attemptsWhenPaused = hook.received.length;
    const held = await event();
    await Bun.sleep(300);
    expect(hook.received).toHaveLength(attemptsWhenPaused);
    expect((await service.deliveries(created.id)).find((delivery) => delivery.message_id === held)?.status).toBe(
      "held",
    );
    healthy = true;
    await service.enable(created.id, { discardHeld: false });
    dispatcher?.wake();
    await until(() => hook.received.some((delivery) => delivery.headers["webhook-id"] === held));
    expect(await service.get(created.id)).toMatchObject({ status: "enabled", failed_messages_in_row: 0 });
  });

  test("with the spec's default the pause comes after the tenth failed message, not before", async () => {
    const hook = receiver(() => new Response(null, { status: 500 }));
    const service = endpointService(site.store, Date.now);
    const { endpoint: created } = await endpoint(hook.url);
    for (let index = 0; index < 9; index++) await event();
    start({ retryDelaysMs: [20] });
    await until(async () => (await service.deliveries(created.id)).every((delivery) => delivery.status === "failed"));
    expect(await service.get(created.id)).toMatchObject({ status: "enabled", failed_messages_in_row: 9 });
    await event();
    dispatcher?.wake();
    await until(async () => (await service.get(created.id)).status === "paused");
    expect((await service.get(created.id)).pause_reason).toBe("10 messages in a row failed every attempt");
  });

  test("410 Gone pauses at once; enabling with discard drops what was held", async () => {
    const hook = receiver(() => new Response(null, { status: 410 }));
    const service = endpointService(site.store, Date.now);
    const { endpoint: created } = await endpoint(hook.url);
    await event();
    start();
    await until(async () => (await service.get(created.id)).status === "paused");
    expect(hook.received).toHaveLength(1);
    const held = await event();
    await service.enable(created.id, { discardHeld: true });
    expect((await service.deliveries(created.id)).find((delivery) => delivery.message_id === held)?.status).toBe(
      "discarded",
    );
  });
});

describe("concurrency", () => {
  test("a slow endpoint does not delay another", async () => {
    const slow = receiver(async () => {
      await Bun.sleep(1_500);
      return new Response(null, { status: 200 });
    });
    const fast = receiver();
    await endpoint(slow.url);
    await endpoint(fast.url);
    for (let index = 0; index < 10; index++) await event();
    const started = Date.now();
    start({ perEndpointConcurrency: 2 });
    await until(() => fast.received.length === 10, 5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("an endpoint changed while its backlog is delivered", () => {
  // Turns woken by settles reuse the last read of the endpoints for up to 50 ms (docs/webhooks.md,
  // "Fairness"): a change nobody wakes the dispatcher for still reaches the next attempts.
  test("its new URL gets the rest; only what was in flight still reaches the old one", async () => {
    const old = receiver(async () => {
      await Bun.sleep(5);
      return new Response(null, { status: 204 });
    });
    const next = receiver();
    const { endpoint: created } = await endpoint(old.url);
    const queued = new Set<string>();
    for (let index = 0; index < 300; index++) queued.add(await event());
    start();
    await until(() => old.received.length >= 20);
    await endpointService(site.store, () => Date.now()).update(created.id, { url: next.url });
    await until(() => next.received.length > 0, 2_000);
    const oldAtSwitch = old.received.length;
    await until(() => old.received.length + next.received.length >= queued.size, 10_000);
    // At most the endpoint's 4 slots were in flight when the new URL got its first message.
    expect(old.received.length - oldAtSwitch).toBeLessThanOrEqual(4);
    expect(next.received.length).toBeGreaterThan(200);
    const ids = [...old.received, ...next.received].map((delivery) => delivery.headers["webhook-id"]);
    expect(new Set(ids)).toEqual(queued);
  });
});

describe("a store that takes no writes", () => {
  test("an outcome the store refuses is kept: the message is not sent again, and is logged once the lock is gone", async () => {
    const hook = receiver();
    const { endpoint: created } = await endpoint(hook.url);
    await event();
    // The serving process's setting: a write fails at once while another process holds the lock.
    const serving = openStore(site.dataDir, { busyTimeoutMs: 0 });
    const other = new Database(join(site.dataDir, storeFileName));
    other.exec("BEGIN IMMEDIATE");
    try {
      start({ store: serving });
      await until(() => hook.received.length === 1);
      await Bun.sleep(1_500); // retries of the write, not of the message
      expect(hook.received).toHaveLength(1);
      expect((await endpointService(site.store, Date.now).deliveries(created.id))[0]?.status).toBe("pending");
      other.exec("ROLLBACK");
      await until(
        async () => (await endpointService(site.store, Date.now).deliveries(created.id))[0]?.status === "delivered",
        3_000,
      );
      expect(hook.received).toHaveLength(1);
    } finally {
      if (other.inTransaction) other.exec("ROLLBACK");
      other.close();
      await dispatcher?.stop();
      dispatcher = null;
      await serving.close();
    }
  });
});

describe("rotation", () => {
  test("during the grace period both the old and the new secret verify each delivery", async () => {
    const hook = receiver();
    const service = endpointService(site.store, Date.now);
    const { endpoint: created, secret: oldSecret } = await endpoint(hook.url);
    const { secret: newSecret } = await service.rotateSecret(created.id, 60_000);
    await event();
    start();
    await until(() => hook.received.length === 1);
    const [delivery] = hook.received as [Received];
    expect(delivery.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verify(newSecret, delivery).type).toBe("device.online");
    expect(verify(oldSecret, delivery).type).toBe("device.online");
  });
});
