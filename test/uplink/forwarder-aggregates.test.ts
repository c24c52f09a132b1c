/**
 * A site forwards each reading as soon as it is stored, before its storage period
 * ended and so before its aggregate is known (docs/fleet.md, "Forwarding"): once
 * the aggregate is stored, the forwarder sends that reading again with it, once,
 * to a central in the test that keeps every row it is sent.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { createCentralClient } from "../../src/uplink/central-client.ts";
import { createForwarder } from "../../src/uplink/forwarder.ts";
import { ids, inventory } from "../store/postgres/inventory-fixture.ts";

const sent: unknown[][] = [];
const kept = new Map<string, number>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const route = `${request.method} ${new URL(request.url).pathname}`;
    if (route === "PUT /edge/v1/inventory") return Response.json({ gateways: 1, registers: 1 });
    if (route === "GET /edge/v1/positions") return Response.json({ positions: Object.fromEntries(kept) });
    if (route === "POST /edge/v1/readings") {
      const { readings } = (await request.json()) as { readings: [string, number][] };
      for (const row of readings) {
        sent.push(row);
        kept.set(row[0], Math.max(kept.get(row[0]) ?? 0, row[1]));
      }
      return Response.json({ stored: readings.length, skipped: 0 });
    }
    if (route === "PUT /edge/v1/status") return Response.json({ gateways: 0, changed: 0 });
    if (route === "GET /edge/v1/alerts") return Response.json({ forwarded_through: 0, requests: [] });
    if (route === "POST /edge/v1/alerts") return Response.json({ alerts: 0, events: 0, recorded: 0 });
    return new Response("no such route", { status: 404 });
  },
});
const dir = mkdtempSync(join(tmpdir(), "fieldhub-forward-aggregates-"));
const store = openStore(dir);
afterAll(async () => {
  server.stop(true);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a reading forwarded before its period ended is sent again with its aggregate once it is stored", async () => {
  const now = Date.UTC(2026, 4, 4, 12);
  const synced = inventory({ gateways: [ids.gatewayB], organizations: [ids.beta] });
  await store.inventory.sync(synced, now);
  const gateways = synced.organizations.flatMap((organization) => organization.gateways);
  const register = (await store.registers.allIds()).find((row) => row.uuid === ids.register(1));
  if (register === undefined) throw new Error("fixture register r1 missing");
  const forwarder = createForwarder({
    central: createCentralClient({
      url: `http://127.0.0.1:${server.port}`,
      token: `fhe_${"c".repeat(64)}`,
      timeoutMs: 2_000,
    }),
    store,
    gateways,
    now: () => now,
    modbusDevices: () => [],
    applyAlertRequest: async () => {},
  });
  const first = now - 120_000;
  await store.readings.recordPolled([[register.id, first, 5]]);
  await forwarder.forward();
  expect(sent).toEqual([[ids.register(1), first, 5]]);

  // The period ended: the next reading and the first one's aggregate are stored.
  await store.readings.recordPolled(
    [[register.id, first + 60_000, 6]],
    [{ registerId: register.id, ts: first, aggregate: { rawMin: 4, rawMax: 60, rawMean: 12.5, samples: 6 } }],
  );
  await forwarder.forward();
  expect(sent.slice(1)).toEqual([
    [ids.register(1), first, 5, 4, 60, 12.5, 6],
    [ids.register(1), first + 60_000, 6],
  ]);

  // Sent once: a round with nothing new sends nothing.
  await forwarder.forward();
  expect(sent.length).toBe(3);
});
