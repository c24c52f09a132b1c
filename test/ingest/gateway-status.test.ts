/**
 * Gateway status from what the pollers report (docs/api.md section 3), checked through
 * the API and the event outbox (docs/api.md section 6.6, DeviceStatusEvent).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createGatewayStatusTracker } from "../../src/ingest/gateway-status.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
let tracker: Awaited<ReturnType<typeof createGatewayStatusTracker>>;
const heartbeatMs = 30_000;

beforeEach(async () => {
  site = await startTestSite();
  tracker = await createGatewayStatusTracker({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    gateways: [ids.acmeGateway1, ids.acmeGateway2, ids.acmeGateway3].map((id) => ({ id, heartbeatMs })),
    checkEveryMs: 3_600_000, // checked by hand
  });
});
afterEach(async () => {
  await tracker.stop();
  await site.stop();
});

async function gateway(id: string) {
  return (
    await call<{ data: { status: string; last_seen: string | null } }>(site.baseUrl, `/v1/devices/${id}`, {
      key: site.keys.acme,
    })
  ).body.data;
}
/** Events of one gateway (the others change status on their own timers in these tests). */
async function events(gatewayId: string) {
  return (await site.store.events.listAfter(1)).filter((event) => event.data.device_id === gatewayId);
}

test("an answer brings an offline gateway online, with device.online and previous_status", async () => {
  const at = site.clock.now();
  await tracker.answered(ids.acmeGateway2, at);
  expect(await gateway(ids.acmeGateway2)).toMatchObject({ status: "online", last_seen: new Date(at).toISOString() });
  expect(await events(ids.acmeGateway2)).toEqual([
    {
      messageId: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      type: "device.online",
      occurredAt: at,
      data: {
        device_id: ids.acmeGateway2,
        serial: "ACME-2",
        device_name: "Greenhouse 2",
        status: "online",
        previous_status: "offline",
        last_seen: new Date(at).toISOString(),
      },
    },
  ]);
  // Further answers move last_seen, without new events; it is written once a minute (few writes).
  site.clock.advance(5_000);
  await tracker.answered(ids.acmeGateway2, site.clock.now());
  await tracker.check();
  expect((await gateway(ids.acmeGateway2)).last_seen).toBe(new Date(at).toISOString());
  site.clock.advance(25_000);
  await tracker.answered(ids.acmeGateway2, site.clock.now());
  site.clock.advance(25_000);
  await tracker.answered(ids.acmeGateway2, site.clock.now());
  site.clock.advance(5_000);
  await tracker.answered(ids.acmeGateway2, site.clock.now());
  await tracker.check();
  expect((await gateway(ids.acmeGateway2)).last_seen).toBe(new Date(site.clock.now()).toISOString());
  expect(await events(ids.acmeGateway2)).toHaveLength(1);
});

test("silence longer than the heartbeat makes it offline; the event carries the last time it reported", async () => {
  const lastAnswer = site.clock.now();
  await tracker.answered(ids.acmeGateway1, lastAnswer);
  site.clock.advance(heartbeatMs);
  await tracker.check();
  expect((await gateway(ids.acmeGateway1)).status).toBe("online"); // not longer than the heartbeat yet
  site.clock.advance(1);
  await tracker.check();
  expect(await gateway(ids.acmeGateway1)).toMatchObject({
    status: "offline",
    last_seen: new Date(lastAnswer).toISOString(),
  });
  expect(
    (await events(ids.acmeGateway1)).map((event) => [event.type, event.data.previous_status, event.data.last_seen]),
  ).toEqual([["device.offline", "online", new Date(lastAnswer).toISOString()]]);
});

test("a lost connection makes it offline at once; it comes back online when it answers", async () => {
  await tracker.answered(ids.acmeGateway1, site.clock.now());
  site.clock.advance(1_000);
  await tracker.unreachable(ids.acmeGateway1, site.clock.now(), "connection lost");
  expect((await gateway(ids.acmeGateway1)).status).toBe("offline");
  site.clock.advance(1_000);
  await tracker.answered(ids.acmeGateway1, site.clock.now());
  expect((await gateway(ids.acmeGateway1)).status).toBe("online");
  expect((await events(ids.acmeGateway1)).map((event) => [event.type, event.data.previous_status])).toEqual([
    ["device.offline", "online"],
    ["device.online", "offline"],
  ]);
});

test("a gateway that never reports leaves pending for offline after its heartbeat", async () => {
  site.clock.advance(heartbeatMs + 1);
  await tracker.check();
  expect((await gateway(ids.acmeGateway3)).status).toBe("offline");
  const [offline] = await events(ids.acmeGateway3);
  expect(offline?.data).toMatchObject({ status: "offline", previous_status: "pending", last_seen: null });
});

test("a bus that cannot be used at all is `error`, without a webhook event", async () => {
  await tracker.unreachable(ids.acmeGateway1, site.clock.now(), "EACCES: permission denied, open '/dev/ttyUSB0'", true);
  expect((await gateway(ids.acmeGateway1)).status).toBe("error");
  expect(await events(ids.acmeGateway1)).toEqual([]);
});

test("clock steps: silence is judged on monotonic time; last_seen follows the latest answer, even back in time", async () => {
  // last_seen written at every check here, so the test reads it at once.
  const tracker = await createGatewayStatusTracker({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    gateways: [ids.acmeGateway1].map((id) => ({ id, heartbeatMs })),
    checkEveryMs: 3_600_000,
    lastSeenEveryMs: 0,
  });
  const before = site.clock.now();
  await tracker.answered(ids.acmeGateway1, before);
  // A day ahead: no silence is faked by the jump.
  site.clock.step(86_400_000);
  await tracker.check();
  expect((await gateway(ids.acmeGateway1)).status).toBe("online");
  await tracker.answered(ids.acmeGateway1, site.clock.now());
  // Back to the right time: the next answer's time is last_seen, though earlier.
  site.clock.step(-86_400_000);
  site.clock.advance(1_000);
  await tracker.answered(ids.acmeGateway1, site.clock.now());
  await tracker.check();
  expect(await gateway(ids.acmeGateway1)).toMatchObject({
    status: "online",
    last_seen: new Date(before + 1_000).toISOString(),
  });
  // Then silence: offline after the heartbeat of monotonic time, not a day later.
  site.clock.advance(heartbeatMs + 1);
  await tracker.check();
  expect((await gateway(ids.acmeGateway1)).status).toBe("offline");
  await tracker.stop();
});
