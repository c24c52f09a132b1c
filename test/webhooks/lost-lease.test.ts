/**
 * A central's dispatcher whose lease on a message runs out mid-attempt (docs/fleet.md,
 * "Webhook leases"), on a private PostgreSQL: a receiver that answers the first POST
 * only after the lease has passed (a dispatcher that does not poll meanwhile stands
 * for a process stalled that long); meanwhile a second process takes the message
 * over and settles it delivered. The first dispatcher's late outcome is refused,
 * counted as a lost claim and logged; the store keeps the second process's outcome.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { systemClock } from "../../src/lib/clock.ts";
import { openPostgresAsStore, type Store } from "../../src/store/index.ts";
import { startDispatcher } from "../../src/webhooks/dispatcher.ts";
import { sampleEvent } from "../harness/events.ts";
import { type PrivatePostgres, postgresAvailable, postgresMissingReason, startPostgres } from "../harness/postgres.ts";

let pg: PrivatePostgres | undefined;
const stores: Store[] = [];

describe.skipIf(!postgresAvailable)(`a lease lost mid-attempt (${postgresMissingReason})`, () => {
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await pg?.stop();
  });

  test("the late outcome is refused, counted and logged; the store keeps the other process's outcome", async () => {
    const url = await (pg as PrivatePostgres).database("lost_lease");
    const leaseMs = 400;
    const first = await openPostgresAsStore(url, { max: 2, webhooks: { leaseMs } });
    const second = await openPostgresAsStore(url, { max: 2, webhooks: { leaseMs } });
    stores.push(first, second);
    const raw = new Bun.SQL(url, { max: 1 });
    await raw`INSERT INTO organizations (id, uuid, key, name, created_at) VALUES (1, 'org-1', 'acme', 'Acme', 0)`;
    await raw.close();

    const seen: string[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        seen.push(request.headers.get("webhook-id") ?? "");
        // The first POST is answered only after the first process's lease has passed.
        if (seen.length === 1) await Bun.sleep(leaseMs * 3);
        return new Response("ok");
      },
    });
    try {
      await first.webhooks.createEndpoint({
        uuid: "e1",
        orgId: 1,
        url: `http://127.0.0.1:${receiver.port}/`,
        description: null,
        eventTypes: "",
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        now: Date.now(),
      });
      await first.events.record(sampleEvent("device.online", 1, Date.now()));

      const lines: string[] = [];
      const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
      const dispatcher = startDispatcher({
        store: first,
        clock: systemClock,
        logger,
        pollEveryMs: 60_000,
        timeoutMs: 5_000,
      });
      // The second process takes the message once the first one's lease is over, and delivers it.
      await Bun.sleep(leaseMs + 150);
      const [taken] = await second.webhooks.due(Date.now(), 10);
      expect(taken).toBeDefined();
      const settledBySecond = await second.webhooks.settle(
        taken as NonNullable<typeof taken>,
        { attemptedAt: Date.now(), statusCode: 200, durationMs: 1, error: null, responseExcerpt: "ok" },
        { kind: "delivered" },
      );
      expect(settledBySecond.settled).toBe(true);

      const deadline = Date.now() + 10_000;
      while (dispatcher.stats().lostClaims === 0 && Date.now() < deadline) await Bun.sleep(50);
      await dispatcher.stop();

      expect(dispatcher.stats().lostClaims).toBe(1);
      expect(lines.join("\n")).toContain("taken over by another process after its lease ran out");
      const [endpoint] = await first.webhooks.endpoints();
      const deliveries = await first.webhooks.deliveries(endpoint?.id ?? -1, 10);
      expect(deliveries.map((delivery) => delivery.status)).toEqual(["delivered"]);
      expect(seen).toHaveLength(1);
    } finally {
      receiver.stop(true);
    }
  }, 30_000);
});
